// Inline buttons end to end through the API: a press becomes a callback_query
// update (native and Telegram shapes, allowed_updates respected), the bot's answer reaches
// the chat's live stream, and editMessageReplyMarkup changes the keyboard.
import { beforeAll, describe, expect, test } from "bun:test";
import { botWithChat, drain, KEYBOARD, native, press, tg, world, type World } from "./support.ts";
import { MODE } from "../support/harness.ts";

let w: World;
beforeAll(async () => {
  w = await world();
});

describe(`callback queries (${MODE})`, () => {
  test("a press reaches the bot as callback_query, natively and through the facade", async () => {
    const chat = await botWithChat(w);
    const sent = await tg(w, chat.bot, "sendMessage", { chat_id: chat.number, text: "Pick one", reply_markup: KEYBOARD });
    expect(sent.body.result.reply_markup).toEqual(KEYBOARD);
    const messageId = sent.body.result.message_id;

    const pressed = await press(w, chat.bot, chat.chatId, messageId, "yes");
    expect(pressed.status).toBe(200);
    const id = pressed.body.result.callback_query_id;
    expect(id).toMatch(/^[0-9a-f]{32}$/);

    // Native shape first (not confirmed), then Telegram's.
    const nativeUpdates = (await w.client.get(`/api/bots/${chat.bot.id}/get-updates?timeout=0`, chat.bot.token)).body.result;
    expect(nativeUpdates).toHaveLength(1);
    expect(nativeUpdates[0].callback_query).toMatchObject({
      id, data: "yes", chat_instance: chat.conversationId,
      from: { first_name: "Vera" },
      message: { message_id: String(messageId), text: "Pick one", reply_markup: KEYBOARD, chat: { id: chat.chatId, type: "private" } },
    });
    const tgUpdates = (await tg(w, chat.bot, "getUpdates", {})).body.result;
    expect(tgUpdates).toHaveLength(1);
    expect(tgUpdates[0].callback_query).toMatchObject({
      id, data: "yes", chat_instance: chat.conversationId,
      from: { is_bot: false, first_name: "Vera" },
      message: { message_id: messageId, text: "Pick one", chat: { id: chat.number, type: "private" }, from: { is_bot: true } },
    });
    expect(Number.isInteger(tgUpdates[0].callback_query.from.id)).toBe(true);

    // The inbox shows the press in the conversation, under the button's label.
    const detail = (await w.client.get(`/api/inbox/${chat.conversationId}`, w.user.token)).body.result;
    expect(detail.messages.at(-1)).toMatchObject({
      direction: "in", sender: "user", text: "Yes", metadata: { callback_query: { id, data: "yes", message_id: String(messageId) } },
    });
  });

  test("allowed_updates without callback_query leaves presses out; with it they arrive", async () => {
    const chat = await botWithChat(w);
    const messageId = (await tg(w, chat.bot, "sendMessage", { chat_id: chat.number, text: "Pick", reply_markup: KEYBOARD })).body.result.message_id;
    expect((await press(w, chat.bot, chat.chatId, messageId, "yes")).status).toBe(200);
    expect((await tg(w, chat.bot, "getUpdates", { allowed_updates: ["message"] })).body.result).toEqual([]);
    expect((await press(w, chat.bot, chat.chatId, messageId, "yes")).status).toBe(200);
    const kept = (await tg(w, chat.bot, "getUpdates", { allowed_updates: ["callback_query"] })).body.result;
    expect(kept.map((u: any) => Object.keys(u).sort())).toEqual([["callback_query", "update_id"]]);
  });

  test("answerCallbackQuery is announced for the chat's live views once; a second answer or an unknown id is Telegram's 400", async () => {
    const chat = await botWithChat(w);
    const messageId = (await tg(w, chat.bot, "sendMessage", { chat_id: chat.number, text: "Pick", reply_markup: KEYBOARD })).body.result.message_id;
    const id = (await press(w, chat.bot, chat.chatId, messageId, "yes")).body.result.callback_query_id;
    const answers: any[] = [];
    const stop = w.client.platform.bus.subscribe(`events.*.callback_answered`, (data) => answers.push(data));
    try {
      const answered = await tg(w, chat.bot, "answerCallbackQuery", { callback_query_id: id, text: "Noted!", show_alert: true });
      expect(answered.body).toEqual({ ok: true, result: true });
      for (let i = 0; i < 200 && answers.length === 0; i++) await Bun.sleep(25);
      expect(answers).toHaveLength(1);
      expect(answers[0]).toMatchObject({ kind: "callback_answered", chat_id: chat.chatId, callback_query_id: id, text: "Noted!", show_alert: true });
    } finally {
      stop();
    }
    const again = await tg(w, chat.bot, "answerCallbackQuery", { callback_query_id: id });
    expect(again).toEqual({ status: 400, body: { ok: false, error_code: 400, description: "Bad Request: query is too old and response timeout expired or query ID is invalid" } });
    const nativeUnknown = await native(w, chat.bot, "answer-callback-query", { callback_query_id: "nope" });
    expect(nativeUnknown.status).toBe(400);
    expect(nativeUnknown.body.ok).toBe(false);
    // Another bot cannot answer this bot's presses.
    const other = await botWithChat(w, "Other bot");
    const id2 = (await press(w, chat.bot, chat.chatId, messageId, "yes")).body.result.callback_query_id;
    expect((await native(w, other.bot, "answer-callback-query", { callback_query_id: id2 })).status).toBe(400);
    expect((await native(w, chat.bot, "answer-callback-query", { callback_query_id: id2, text: "ok" })).body).toEqual({ ok: true, result: true });
  });

  test("presses are validated: only a real button of the bot's message in this web chat", async () => {
    const chat = await botWithChat(w);
    const messageId = (await tg(w, chat.bot, "sendMessage", { chat_id: chat.number, text: "Pick", reply_markup: KEYBOARD })).body.result.message_id;
    const plain = (await tg(w, chat.bot, "sendMessage", { chat_id: chat.number, text: "No buttons" })).body.result.message_id;
    const cases: [unknown, number][] = [
      [{ bot_id: chat.bot.id, chat_id: chat.chatId, message_id: String(messageId), data: "no-such-button" }, 400],
      [{ bot_id: chat.bot.id, chat_id: chat.chatId, message_id: String(plain), data: "yes" }, 400],
      [{ bot_id: chat.bot.id, chat_id: chat.chatId, message_id: "999999", data: "yes" }, 404],
      [{ bot_id: chat.bot.id, chat_id: "someone-else", message_id: String(messageId), data: "yes" }, 404],
      [{ bot_id: chat.bot.id, chat_id: chat.chatId, message_id: "1e3", data: "yes" }, 400],
      [{ bot_id: chat.bot.id, chat_id: chat.chatId, message_id: String(messageId), data: "x".repeat(65) }, 400],
      [{ bot_id: chat.bot.id, chat_id: chat.chatId, message_id: String(messageId) }, 400],
      [{ chat_id: chat.chatId, message_id: String(messageId), data: "yes" }, 400],
      ["not an object", 400],
    ];
    for (const [body, status] of cases) {
      const res = await w.client.post("/api/messages/callback-query", body);
      expect({ body, status: res.status, ok: res.body.ok, error: typeof res.body.error }).toEqual({ body, status, ok: false, error: "string" });
    }
    expect(await drain(w, chat.bot)).toEqual([]);
  });

  test("editMessageReplyMarkup replaces and removes the keyboard; the same markup is 'not modified'", async () => {
    const chat = await botWithChat(w);
    const messageId = (await tg(w, chat.bot, "sendMessage", { chat_id: chat.number, text: "<b>Pick</b>", parse_mode: "HTML", reply_markup: KEYBOARD })).body.result.message_id;
    const next = { inline_keyboard: [[{ text: "✓ Yes", callback_data: "done" }]] };
    const edited = await tg(w, chat.bot, "editMessageReplyMarkup", { chat_id: chat.number, message_id: messageId, reply_markup: next });
    expect(edited.body.result).toMatchObject({ message_id: messageId, text: "Pick", entities: [{ type: "bold", offset: 0, length: 4 }], reply_markup: next });
    const same = await tg(w, chat.bot, "editMessageReplyMarkup", { chat_id: chat.number, message_id: messageId, reply_markup: next });
    expect(same.status).toBe(400);
    expect(same.body.description).toStartWith("Bad Request: message is not modified");
    const removed = await tg(w, chat.bot, "editMessageReplyMarkup", { chat_id: chat.number, message_id: messageId });
    expect(removed.body.result.reply_markup).toBeUndefined();
    const history = (await w.client.get(`/api/messages?bot_id=${chat.bot.id}&chat_id=${chat.chatId}`)).body.result;
    expect(history.find((m: any) => m.message_id === String(messageId))).toMatchObject({ reply_markup: null, text: "Pick" });
    // Natively too.
    const viaNative = await native(w, chat.bot, "edit-message-reply-markup", { message_id: String(messageId), reply_markup: next });
    expect(viaNative.body.result.reply_markup).toEqual(next);
  });

  test("reply_markup is checked as Telegram checks it", async () => {
    const chat = await botWithChat(w);
    const bad: [unknown, string][] = [
      [{ inline_keyboard: [[{ text: "No action" }]] }, "Text buttons are unallowed in the inline keyboard"],
      [{ inline_keyboard: [[{ text: "Big", callback_data: "x".repeat(65) }]] }, "BUTTON_DATA_INVALID"],
      [{ inline_keyboard: [{ text: "not a row" }] }, "inline_keyboard must be an array of button rows"],
      [{ inline_keyboard: [[{ text: "", callback_data: "a" }]] }, "non-empty text"],
      [{ keyboard: [[{ nope: 1 }]] }, "non-empty text"],
    ];
    for (const [markup, words] of bad) {
      const res = await tg(w, chat.bot, "sendMessage", { chat_id: chat.number, text: "x", reply_markup: markup });
      expect({ status: res.status, words: res.body.description.includes(words) }).toEqual({ status: 400, words: true });
    }
    const ok = await tg(w, chat.bot, "sendMessage", {
      chat_id: chat.number, text: "Menu", reply_markup: { keyboard: [["Prices", { text: "Help" }]], one_time_keyboard: true, resize_keyboard: true },
    });
    expect(ok.status).toBe(200);
  });
});
