// Fixtures for the facade tests: a real HTTP server (client libraries need a socket, not
// app.handle), a user with a bot, incoming messages through POST /api/messages and the
// chat history through GET /api/messages, as a website visitor would see it.
import { expect } from "bun:test";
import { createLogger } from "../../src/logger.ts";
import { startServer, type RunningServer } from "../../src/server.ts";
import { sharedDb, testConfig, uniqueEmail } from "../support/harness.ts";

/** How long a reply may take to show up; the machine is small and shared. */
export const REPLY_WAIT_MS = 20_000;
/** Between looks at the history while waiting. */
const POLL_INTERVAL_MS = 50;

export interface Http {
  status: number;
  body: any;
}

export interface Facade {
  server: RunningServer;
  url: string;
  call(method: string, path: string, body?: unknown, token?: string): Promise<Http>;
  /** A user and one bot of theirs. */
  newBot(name: string): Promise<FacadeBot>;
  stop(): Promise<void>;
}

export interface FacadeBot {
  id: string;
  number: number;
  token: string;
  username: string;
  userToken: string;
}

export interface Visitor {
  chatId: string;
  userId: string;
  firstName: string;
}

export async function startFacade(): Promise<Facade> {
  const config = testConfig();
  const server = await startServer(config, createLogger(config), { db: await sharedDb(), migrate: false });
  const call: Facade["call"] = async (method, path, body, token) => {
    const headers: Record<string, string> = {};
    if (body !== undefined) headers["content-type"] = "application/json";
    if (token) headers.authorization = `Bearer ${token}`;
    const res = await fetch(`${server.url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {}
    return { status: res.status, body: parsed };
  };
  return {
    server,
    url: server.url,
    call,
    async newBot(name) {
      const user = await call("POST", "/api/auth/register", { email: uniqueEmail("tg"), password: "secret123" });
      expect(user.status).toBe(200);
      const userToken: string = user.body.result.token;
      const bot = await call("POST", "/api/bots", { name }, userToken);
      expect(bot.status).toBe(201);
      return { ...bot.body.result, userToken };
    },
    stop: () => server.stop(),
  };
}

export const newVisitor = (firstName: string): Visitor => ({
  chatId: `chat-${crypto.randomUUID()}`,
  userId: `user-${crypto.randomUUID()}`,
  firstName,
});

/** A visitor's message on the web channel, as the widget or a site would post it. */
export async function say(facade: Facade, bot: FacadeBot, visitor: Visitor, text: string) {
  const res = await facade.call("POST", "/api/messages", {
    bot_id: bot.id, chat_id: visitor.chatId, channel: "web", text, user: { id: visitor.userId, first_name: visitor.firstName },
  });
  expect(res.status).toBe(200);
  return res.body.result as { id: string; message_id: string; conversation_id: string; chat_id: string };
}

export interface HistoryMessage {
  message_id: string;
  direction: "in" | "out";
  sender: "user" | "bot" | "operator";
  text: string;
  edited_at: string | null;
}

export async function history(facade: Facade, bot: FacadeBot, visitor: Visitor): Promise<HistoryMessage[]> {
  const res = await facade.call("GET", `/api/messages?bot_id=${bot.id}&chat_id=${encodeURIComponent(visitor.chatId)}`);
  expect(res.status).toBe(200);
  return res.body.result;
}

/** Waits until the chat history satisfies `ready`; fails with the last history seen. */
export async function waitForHistory(
  facade: Facade, bot: FacadeBot, visitor: Visitor, ready: (messages: HistoryMessage[]) => boolean,
): Promise<HistoryMessage[]> {
  const deadline = Date.now() + REPLY_WAIT_MS;
  let seen: HistoryMessage[] = [];
  while (Date.now() < deadline) {
    seen = await history(facade, bot, visitor);
    if (ready(seen)) return seen;
    await Bun.sleep(POLL_INTERVAL_MS);
  }
  throw new Error(`history never got ready; last seen: ${JSON.stringify(seen.map((m) => [m.sender, m.text]))}`);
}

export const texts = (messages: HistoryMessage[]) => messages.map((m) => m.text);
export const botTexts = (messages: HistoryMessage[]) => messages.filter((m) => m.sender === "bot").map((m) => m.text);

/** A visitor says something and waits for the bot's reply that `expected` names. */
export async function exchange(facade: Facade, bot: FacadeBot, visitor: Visitor, text: string, expected: string) {
  await say(facade, bot, visitor, text);
  return waitForHistory(facade, bot, visitor, (messages) => botTexts(messages).includes(expected));
}

/** Native get-updates: nothing left once a library has stopped and confirmed what it handled. */
export async function pendingNative(facade: Facade, bot: FacadeBot): Promise<unknown[]> {
  const res = await facade.call("GET", `/api/bots/${bot.id}/get-updates?timeout=0`, undefined, bot.token);
  expect(res.status).toBe(200);
  return res.body.result;
}

/** The conversation as the operator inbox has it: its number is the facade's chat.id. */
export async function inboxConversation(facade: Facade, bot: FacadeBot, visitor: Visitor) {
  const list = await facade.call("GET", `/api/inbox?bot_id=${bot.id}`, undefined, bot.userToken);
  expect(list.status).toBe(200);
  const found = list.body.result.find((c: { chat_id: string }) => c.chat_id === visitor.chatId);
  expect(found).toBeDefined();
  return found as { id: string; number: number; chat_id: string; contact: { number: number; first_name: string } };
}
