// Handoff. While an operator has a conversation, the bot gets no updates for it
// (messages, operator replies, presses) though the inbox gets everything; giving it back
// resumes the updates; the bot hands a chat over itself through both API faces.
import { beforeAll, describe, expect, test } from "bun:test";
import { botWithChat, drain, KEYBOARD, native, press, say, tg, world, type World } from "./support.ts";
import { MODE, registerUser } from "../support/harness.ts";

let w: World;
beforeAll(async () => {
  w = await world();
});

const inbox = (id: string) => w.client.get(`/api/inbox/${id}`, w.user.token).then((r) => r.body.result);

describe(`handoff (${MODE})`, () => {
  test("a taken-over conversation produces no updates; give-back resumes them", async () => {
    const chat = await botWithChat(w);
    const messageId = (await tg(w, chat.bot, "sendMessage", { chat_id: chat.number, text: "Pick", reply_markup: KEYBOARD })).body.result.message_id;
    expect((await inbox(chat.conversationId)).handled_by).toBe("bot");

    const taken = await w.client.post(`/api/inbox/${chat.conversationId}/takeover`, undefined, w.user.token);
    expect(taken.status).toBe(200);
    expect(taken.body.result).toMatchObject({ handled_by: "human", handed_over_by: w.user.id });
    expect(typeof taken.body.result.handed_over_at).toBe("string");
    // Taking a conversation over assigns it to whoever took it.
    expect((await inbox(chat.conversationId)).assignee?.user_id).toBe(w.user.id);

    await say(w, chat.bot, chat.chatId, "I want a person");
    expect((await w.client.post(`/api/inbox/${chat.conversationId}`, { text: "Hi, Anna here" }, w.user.token)).status).toBe(200);
    const pressed = await press(w, chat.bot, chat.chatId, messageId, "yes");
    expect(pressed.status).toBe(409);
    expect(pressed.body.ok).toBe(false);
    expect(await drain(w, chat.bot)).toEqual([]);
    expect((await tg(w, chat.bot, "getUpdates", {})).body.result).toEqual([]);
    // The inbox has everything.
    expect((await inbox(chat.conversationId)).messages.map((m: any) => m.text)).toEqual(["hi", "Pick", "I want a person", "Hi, Anna here"]);

    const released = await w.client.post(`/api/inbox/${chat.conversationId}/release`, undefined, w.user.token);
    expect(released.body.result).toMatchObject({ handled_by: "bot", handed_over_by: null, handed_over_at: null });
    await say(w, chat.bot, chat.chatId, "thanks, bot again");
    expect((await press(w, chat.bot, chat.chatId, messageId, "yes")).status).toBe(200);
    const updates = await drain(w, chat.bot);
    expect(updates.map((u) => u.message?.text ?? u.callback_query?.data)).toEqual(["thanks, bot again", "yes"]);
  });

  test("only the owner can take over or give back; bad ids are 4xx", async () => {
    const chat = await botWithChat(w);
    const stranger = await registerUser(w.client);
    expect((await w.client.post(`/api/inbox/${chat.conversationId}/takeover`, undefined, stranger.token)).status).toBe(404);
    expect((await w.client.post(`/api/inbox/${chat.conversationId}/takeover`)).status).toBe(401);
    expect((await w.client.post(`/api/inbox/not-a-uuid/release`, undefined, w.user.token)).status).toBe(400);
    expect((await inbox(chat.conversationId)).handled_by).toBe("bot");
  });

  test("the bot hands a chat over itself: native handoff and the facade's handOffChat", async () => {
    const a = await botWithChat(w);
    const handed = await native(w, a.bot, "handoff", { chat_id: a.chatId });
    expect(handed.body).toEqual({ ok: true, result: { chat_id: a.chatId, handled_by: "human" } });
    expect(await inbox(a.conversationId)).toMatchObject({ handled_by: "human", handed_over_by: null });
    await say(w, a.bot, a.chatId, "hello?");
    expect(await drain(w, a.bot)).toEqual([]);
    expect((await native(w, a.bot, "handoff", { chat_id: "no-such-chat" })).status).toBe(404);
    expect((await native(w, a.bot, "handoff", {})).status).toBe(400);

    const b = await botWithChat(w, "Facade handoff");
    expect((await tg(w, b.bot, "handOffChat", { chat_id: b.number })).body).toEqual({ ok: true, result: true });
    expect((await inbox(b.conversationId)).handled_by).toBe("human");
    await say(w, b.bot, b.chatId, "anyone?");
    expect((await tg(w, b.bot, "getUpdates", {})).body.result).toEqual([]);
    // The operator gives it back: the bot hears the chat again.
    await w.client.post(`/api/inbox/${b.conversationId}/release`, undefined, w.user.token);
    await say(w, b.bot, b.chatId, "back");
    expect((await tg(w, b.bot, "getUpdates", {})).body.result.map((u: any) => u.message.text)).toEqual(["back"]);
  });
});
