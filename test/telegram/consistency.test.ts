// Native and facade views of one bot stay consistent: a message
// sent through either face shows in the chat history and can be edited and deleted
// through the other; both faces read and confirm the same update log.
import { beforeAll, describe, expect, test } from "bun:test";
import { createTestBot, registerUser, testClient, type Client, type TestBot, type TestUser } from "../support/harness.ts";

let client: Client;
let alice: TestUser;
beforeAll(async () => {
  client = await testClient();
  alice = await registerUser(client);
});

async function tg(bot: TestBot, method: string, params: Record<string, unknown> = {}) {
  const res = await client.post(`/bot${bot.token}/${method}`, params);
  return { status: res.status, body: res.body };
}
const native = (bot: TestBot, method: string, body: Record<string, unknown>) => client.post(`/api/bots/${bot.id}/${method}`, body, bot.token);

async function chatWithVisitor(bot: TestBot, user?: Record<string, string>) {
  const chatId = `chat-${crypto.randomUUID()}`;
  const res = await client.post("/api/messages", { bot_id: bot.id, chat_id: chatId, text: "hi", channel: "web", ...(user ? { user } : {}) });
  expect(res.status).toBe(200);
  const conversation = (await client.get(`/api/inbox?bot_id=${bot.id}`, alice.token)).body.result.find((c: any) => c.chat_id === chatId);
  return { chatId, number: conversation.number as number, conversationId: res.body.result.conversation_id as string, incomingId: Number(res.body.result.message_id) };
}

async function botHistory(bot: TestBot, chatId: string) {
  const res = await client.get(`/api/messages?bot_id=${bot.id}&chat_id=${chatId}`);
  return res.body.result.filter((m: any) => m.sender === "bot").map((m: any) => ({ message_id: m.message_id, text: m.text, edited: m.edited_at !== null }));
}

describe("native and facade views", () => {
  test("a message sent through the facade is in the native history and edited and deleted natively", async () => {
    const bot = await createTestBot(client, alice);
    const { chatId, number } = await chatWithVisitor(bot);
    const sent = await tg(bot, "sendMessage", { chat_id: number, text: "from the facade" });
    expect(sent.status).toBe(200);
    const id: number = sent.body.result.message_id;
    expect(await botHistory(bot, chatId)).toEqual([{ message_id: String(id), text: "from the facade", edited: false }]);

    const edited = await native(bot, "edit-message-text", { message_id: String(id), text: "edited natively" });
    expect(edited.body.result).toMatchObject({ message_id: String(id), chat: { id: chatId }, text: "edited natively" });
    expect(await botHistory(bot, chatId)).toEqual([{ message_id: String(id), text: "edited natively", edited: true }]);
    // The facade sees the native edit: the same text again is "not modified".
    expect((await tg(bot, "editMessageText", { chat_id: number, message_id: id, text: "edited natively" })).body.description)
      .toStartWith("Bad Request: message is not modified");

    expect((await native(bot, "delete-message", { message_id: id })).status).toBe(200);
    expect(await botHistory(bot, chatId)).toEqual([]);
    expect((await tg(bot, "editMessageText", { chat_id: number, message_id: id, text: "too late" })).body.description).toBe("Bad Request: message to edit not found");
    expect((await tg(bot, "deleteMessage", { chat_id: number, message_id: id })).body.description).toBe("Bad Request: message to delete not found");
  });

  test("a message sent natively is edited and deleted through the facade", async () => {
    const bot = await createTestBot(client, alice);
    const { chatId, number } = await chatWithVisitor(bot);
    const sent = await native(bot, "send-message", { chat_id: chatId, text: "from the native API" });
    const id = Number(sent.body.result.message_id);

    const edited = await tg(bot, "editMessageText", { chat_id: number, message_id: id, text: "edited through the facade" });
    expect(edited.body.result).toMatchObject({ message_id: id, chat: { id: number }, from: { id: bot.number, is_bot: true }, text: "edited through the facade" });
    expect(edited.body.result.edit_date).toBeInteger();
    expect(await botHistory(bot, chatId)).toEqual([{ message_id: String(id), text: "edited through the facade", edited: true }]);

    // The chat must be the message's own chat, as in Telegram.
    const other = await chatWithVisitor(bot);
    expect((await tg(bot, "deleteMessage", { chat_id: other.number, message_id: id })).body.description).toBe("Bad Request: message to delete not found");
    expect(await tg(bot, "deleteMessage", { chat_id: number, message_id: String(id) })).toEqual({ status: 200, body: { ok: true, result: true } });
    expect(await botHistory(bot, chatId)).toEqual([]);
    expect((await native(bot, "delete-message", { message_id: id })).status).toBe(404);
  });

  test("messages the bot did not send can be neither edited nor deleted, in either view", async () => {
    const bot = await createTestBot(client, alice);
    const { number, conversationId, incomingId } = await chatWithVisitor(bot);
    await client.post(`/api/inbox/${conversationId}`, { text: "operator reply" }, alice.token);
    const operatorId = incomingId + 1;
    for (const id of [incomingId, operatorId]) {
      expect((await tg(bot, "editMessageText", { chat_id: number, message_id: id, text: "mine now" })).body.description).toBe("Bad Request: message can't be edited");
      expect((await tg(bot, "deleteMessage", { chat_id: number, message_id: id })).body.description).toBe("Bad Request: message can't be deleted");
      expect((await native(bot, "delete-message", { message_id: id })).status).toBe(403);
    }
  });

  test("both views read one update log: same update_ids, and a confirmation in one holds in the other", async () => {
    const bot = await createTestBot(client, alice);
    const { chatId, number } = await chatWithVisitor(bot, { id: "visitor-1" });
    await client.post("/api/messages", { bot_id: bot.id, chat_id: chatId, text: "second", channel: "web", user: { id: "visitor-1" } });
    const nativeView = (await client.get(`/api/bots/${bot.id}/get-updates?timeout=0`, bot.token)).body.result;
    const facadeView = (await tg(bot, "getUpdates")).body.result;
    expect(facadeView.map((u: any) => u.update_id)).toEqual(nativeView.map((u: any) => u.update_id));
    expect(facadeView.map((u: any) => u.message.message_id)).toEqual(nativeView.map((u: any) => Number(u.message.message_id)));
    expect(facadeView.map((u: any) => u.message.chat.id)).toEqual([number, number]);
    // A contact without a name is still a Telegram user with a first_name.
    expect(facadeView[0].message.from).toEqual({ id: expect.any(Number), is_bot: false, first_name: "Guest" });

    await tg(bot, "getUpdates", { offset: facadeView[1].update_id });
    const left = (await client.get(`/api/bots/${bot.id}/get-updates?timeout=0`, bot.token)).body.result;
    expect(left.map((u: any) => u.update_id)).toEqual([facadeView[1].update_id]);
  });
});
