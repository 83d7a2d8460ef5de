// Fixtures for the buttons, formatting and handoff API tests: a bot with a web chat, calls through the facade
// (in-process, Telegram's envelope) and the native runtime.
import { expect } from "bun:test";
import { createTestBot, registerUser, testClient, type Client, type TestBot, type TestUser } from "../support/harness.ts";

export interface World {
  client: Client;
  user: TestUser;
}

export async function world(): Promise<World> {
  const client = await testClient();
  return { client, user: await registerUser(client) };
}

export interface Chat {
  bot: TestBot;
  chatId: string;
  /** The conversation's number: the facade's chat.id. */
  number: number;
  conversationId: string;
}

/** A bot and a visitor's web chat with it (one message in, already confirmed). */
export async function botWithChat(w: World, name = "Buttons bot"): Promise<Chat> {
  const bot = await createTestBot(w.client, w.user, name);
  const chatId = `chat-${crypto.randomUUID()}`;
  const said = await say(w, bot, chatId, "hi");
  await drain(w, bot);
  const list = await w.client.get(`/api/inbox?bot_id=${bot.id}`, w.user.token);
  const conversation = list.body.result.find((c: any) => c.chat_id === chatId);
  expect(said.conversation_id).toBe(conversation.id);
  return { bot, chatId, number: conversation.number, conversationId: conversation.id };
}

export async function say(w: World, bot: TestBot, chatId: string, text: string) {
  const res = await w.client.post("/api/messages", { bot_id: bot.id, chat_id: chatId, channel: "web", text, user: { id: `u-${chatId}`, first_name: "Vera" } });
  expect(res.status).toBe(200);
  return res.body.result;
}

/** Everything pending for the bot, confirmed: the next get-updates starts empty. */
export async function drain(w: World, bot: TestBot): Promise<any[]> {
  const res = await w.client.get(`/api/bots/${bot.id}/get-updates?timeout=0`, bot.token);
  expect(res.status).toBe(200);
  const updates: any[] = res.body.result;
  if (updates.length) await w.client.get(`/api/bots/${bot.id}/get-updates?timeout=0&offset=${updates.at(-1).update_id + 1}`, bot.token);
  return updates;
}

export async function tg(w: World, bot: TestBot, method: string, params: Record<string, unknown> = {}) {
  const res = await w.client.app.handle(new Request(`http://test.local/bot${bot.token}/${method}`, {
    method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(params),
  }));
  return { status: res.status, body: (await res.json()) as any };
}

export const native = (w: World, bot: TestBot, op: string, body: unknown) => w.client.post(`/api/bots/${bot.id}/${op}`, body, bot.token);

export const press = (w: World, bot: TestBot, chatId: string, messageId: string | number, data: string) =>
  w.client.post("/api/messages/callback-query", { bot_id: bot.id, chat_id: chatId, message_id: String(messageId), data });

export const KEYBOARD = { inline_keyboard: [[{ text: "Yes", callback_data: "yes" }, { text: "Docs", url: "https://example.com/docs" }]] };
