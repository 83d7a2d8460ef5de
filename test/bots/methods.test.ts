// The facade methods typical bots call beyond messaging: getChat, copyMessage,
// forwardMessage, the profile setters and getters, setWebhook without url, and 400 (not
// 404) for the Telegram methods this server does not offer.
import { beforeAll, describe, expect, test } from "bun:test";
import { botWithChat, tg, world, type World } from "./support.ts";
import { MODE } from "../support/harness.ts";

let w: World;
beforeAll(async () => {
  w = await world();
});

describe(`more facade methods (${MODE})`, () => {
  test("getChat answers the private chat; an unknown chat is 400", async () => {
    const chat = await botWithChat(w);
    const got = await tg(w, chat.bot, "getChat", { chat_id: chat.number });
    expect(got.body.result).toMatchObject({ id: chat.number, type: "private", first_name: "Vera", accent_color_id: 0 });
    expect((await tg(w, chat.bot, "getChat", { chat_id: 987654 })).body).toMatchObject({ ok: false, error_code: 400, description: "Bad Request: chat not found" });
  });

  test("copyMessage and forwardMessage within the bot's chats keep text and formatting", async () => {
    const a = await botWithChat(w);
    const sent = (await tg(w, a.bot, "sendMessage", { chat_id: a.number, text: "<b>Deal</b> of the day", parse_mode: "HTML" })).body.result;
    const copied = await tg(w, a.bot, "copyMessage", { chat_id: a.number, from_chat_id: a.number, message_id: sent.message_id });
    expect(copied.body.result).toEqual({ message_id: sent.message_id + 1 });
    const forwarded = await tg(w, a.bot, "forwardMessage", { chat_id: a.number, from_chat_id: a.number, message_id: sent.message_id });
    expect(forwarded.body.result).toMatchObject({ text: "Deal of the day", entities: [{ type: "bold", offset: 0, length: 4 }] });
    // The visitor's own message can be copied too; another bot's chat cannot be named.
    const visitorMessage = (await w.client.get(`/api/messages?bot_id=${a.bot.id}&chat_id=${a.chatId}`)).body.result[0];
    expect((await tg(w, a.bot, "copyMessage", { chat_id: a.number, from_chat_id: a.number, message_id: Number(visitorMessage.message_id) })).status).toBe(200);
    const b = await botWithChat(w, "Other");
    expect((await tg(w, b.bot, "copyMessage", { chat_id: b.number, from_chat_id: b.number, message_id: sent.message_id })).body.description)
      .toBe("Bad Request: message to copy not found");
    expect((await tg(w, a.bot, "forwardMessage", { chat_id: a.number, message_id: sent.message_id })).status).toBe(400);
  });

  test("replies: reply_parameters and reply_to_message_id are kept; a missing target is 400 unless allowed", async () => {
    const chat = await botWithChat(w);
    const visitorMessage = Number((await w.client.get(`/api/messages?bot_id=${chat.bot.id}&chat_id=${chat.chatId}`)).body.result[0].message_id);
    const modern = await tg(w, chat.bot, "sendMessage", { chat_id: chat.number, text: "Re", reply_parameters: { message_id: visitorMessage } });
    expect(modern.body.result.metadata).toEqual({ reply_to_message_id: String(visitorMessage) });
    const classic = await tg(w, chat.bot, "sendMessage", { chat_id: chat.number, text: "Re", reply_to_message_id: visitorMessage });
    expect(classic.body.result.metadata).toEqual({ reply_to_message_id: String(visitorMessage) });
    expect((await tg(w, chat.bot, "sendMessage", { chat_id: chat.number, text: "Re", reply_to_message_id: 999999 })).body.description)
      .toBe("Bad Request: message to be replied not found");
    const allowed = await tg(w, chat.bot, "sendMessage", { chat_id: chat.number, text: "Re", reply_parameters: { message_id: 999999, allow_sending_without_reply: true } });
    expect(allowed.body.result.metadata).toBeUndefined();
    const nativeReply = await w.client.post(`/api/bots/${chat.bot.id}/send-message`, { chat_id: chat.chatId, text: "Re", reply_to_message_id: String(visitorMessage) }, chat.bot.token);
    expect(nativeReply.body.result.metadata).toEqual({ reply_to_message_id: String(visitorMessage) });
  });

  test("name, descriptions and menu button are stored and answered", async () => {
    const chat = await botWithChat(w, "Profile bot");
    expect((await tg(w, chat.bot, "getMyName")).body.result).toEqual({ name: "Profile bot" });
    expect((await tg(w, chat.bot, "setMyName", { name: "Acme helper" })).body.result).toBe(true);
    expect((await tg(w, chat.bot, "getMyName")).body.result).toEqual({ name: "Acme helper" });
    expect((await tg(w, chat.bot, "setMyDescription", { description: "We answer fast." })).body.result).toBe(true);
    expect((await tg(w, chat.bot, "getMyDescription")).body.result).toEqual({ description: "We answer fast." });
    expect((await tg(w, chat.bot, "setMyShortDescription", { short_description: "Fast" })).body.result).toBe(true);
    expect((await tg(w, chat.bot, "getMyShortDescription")).body.result).toEqual({ short_description: "Fast" });
    expect((await tg(w, chat.bot, "setMyShortDescription", { short_description: "" })).body.result).toBe(true);
    expect((await tg(w, chat.bot, "getMyShortDescription")).body.result).toEqual({ short_description: "" });
    expect((await tg(w, chat.bot, "getChatMenuButton")).body.result).toEqual({ type: "default" });
    expect((await tg(w, chat.bot, "setChatMenuButton", { menu_button: { type: "commands" } })).body.result).toBe(true);
    expect((await tg(w, chat.bot, "getChatMenuButton", { chat_id: chat.number })).body.result).toEqual({ type: "commands" });
    expect((await tg(w, chat.bot, "setMyName", { name: "x".repeat(65) })).status).toBe(400);
    expect((await tg(w, chat.bot, "setMyName", { name: "Hallo", language_code: "de" })).status).toBe(400);
    expect((await tg(w, chat.bot, "setChatMenuButton", { menu_button: { type: "bogus" } })).status).toBe(400);
  });

  test("setWebhook without url deletes the webhook (telebot's launch); unknown methods stay 404, known unsupported ones are 400", async () => {
    const chat = await botWithChat(w);
    expect((await tg(w, chat.bot, "setWebhook", {})).body).toEqual({ ok: true, result: true, description: "Webhook is already deleted" });
    for (const method of ["sendLocation", "sendSticker", "sendVideoNote", "answerInlineQuery", "sendPoll"]) {
      expect(await tg(w, chat.bot, method, { chat_id: chat.number })).toEqual({
        status: 400, body: { ok: false, error_code: 400, description: "Bad Request: method is not supported by this server" },
      });
    }
    // Media methods are served now: without their file they say what is missing, as Telegram does.
    expect((await tg(w, chat.bot, "sendPhoto", { chat_id: chat.number })).body.description).toBe("Bad Request: there is no photo in the request");
    expect((await tg(w, chat.bot, "noSuchMethod")).status).toBe(404);
  });
});
