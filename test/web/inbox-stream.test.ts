// GET /api/inbox/stream: the cabinet's live inbox, resumable by Last-Event-ID.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { REPLAY_MAX_AGE_MS } from "../../src/domain/inbox_feed.ts";
import { createTestBot, registerUser, testClient, type Client, type TestBot, type TestUser } from "../support/harness.ts";
import { openStream, type OpenStream, type SseFrame } from "./sse.ts";

let client: Client;
let user: TestUser;
let bot: TestBot;
const open: OpenStream[] = [];

beforeAll(async () => {
  client = await testClient();
  user = await registerUser(client);
  bot = await createTestBot(client, user, "Inbox stream bot");
});

afterAll(async () => {
  for (const s of open) await s.close();
  await client.platform.close();
});

async function inboxStream(token: string, headers: Record<string, string> = {}, query = "") {
  const s = await openStream(client.app, `/api/inbox/stream${query}`, { authorization: `Bearer ${token}`, ...headers });
  open.push(s);
  return s;
}

const visitor = (chat: string, text: string) => client.post("/api/messages", { widget_key: bot.widget_key, chat_id: chat, text });
const ofChat = (chat: string) => (f: SseFrame) => f.data?.conversation?.chat_id === chat;

describe("inbox stream", () => {
  test("needs the user token", async () => {
    const anonymous = await openStream(client.app, "/api/inbox/stream");
    expect(anonymous.status).toBe(401);
    const garbage = await inboxStream("not-a-token");
    expect(garbage.status).toBe(401);
  });

  test("delivers the user's conversation and message events live, and nobody else's", async () => {
    const s = await inboxStream(user.token);
    const ready = await s.next((f) => f.event === "ready");
    expect(Number(ready.id)).toBeGreaterThan(0);

    const chat = `inbox-${crypto.randomUUID()}`;
    const accepted = (await visitor(chat, "need help")).body.result;
    const [created, message] = await s.collect(2, ofChat(chat));
    expect(created!.event).toBe("conversation_created");
    expect(created!.data.conversation).toMatchObject({ id: accepted.conversation_id, bot_id: bot.id, status: "new" });
    expect(message!.event).toBe("message_created");
    expect(message!.data.message).toMatchObject({ text: "need help", direction: "in" });
    expect(Number(message!.id)).toBeGreaterThanOrEqual(Number(ready.id));

    await client.patch(`/api/inbox/${accepted.conversation_id}`, { status: "waiting", operator_note: "vip" }, user.token);
    const updated = await s.next((f) => f.event === "conversation_updated" && ofChat(chat)(f));
    expect(updated.data.conversation).toMatchObject({ status: "waiting", operator_note: "vip" });

    // Another user's traffic never reaches this stream.
    const other = await registerUser(client);
    const otherBot = await createTestBot(client, other, "Other");
    const otherChat = `other-${crypto.randomUUID()}`;
    await client.post("/api/messages", { widget_key: otherBot.widget_key, chat_id: otherChat, text: "secret" });
    await visitor(chat, "after the other one");
    await s.next((f) => f.event === "message_created" && f.data.message.text === "after the other one");
    expect(s.frames.some(ofChat(otherChat))).toBe(false);
  });

  test("a reconnect with Last-Event-ID replays what happened while away", async () => {
    const chat = `away-${crypto.randomUUID()}`;
    const accepted = (await visitor(chat, "first")).body.result;
    const s1 = await inboxStream(user.token);
    await s1.next((f) => f.event === "ready");
    await visitor(chat, "second");
    const seen = await s1.next((f) => f.event === "message_created" && f.data.message.text === "second");
    await s1.close();

    await visitor(chat, "third");
    await client.post(`/api/inbox/${accepted.conversation_id}`, { text: "operator reply" }, user.token);
    await client.patch(`/api/inbox/${accepted.conversation_id}`, { status: "closed" }, user.token);
    const newChat = `new-${crypto.randomUUID()}`;
    await visitor(newChat, "brand new");

    const s2 = await inboxStream(user.token, { "last-event-id": seen.id! });
    await s2.next((f) => f.event === "ready");
    const texts = s2.frames.filter((f) => f.event === "message_created").map((f) => f.data.message.text);
    for (const t of ["third", "operator reply", "brand new"]) expect(texts).toContain(t);
    const snapshot = s2.frames.filter((f) => f.event === "conversation_updated" && ofChat(chat)(f)).at(-1);
    expect(snapshot!.data.conversation).toMatchObject({ status: "closed", last_message: { text: "operator reply" } });
    expect(s2.frames.some((f) => f.event === "conversation_updated" && ofChat(newChat)(f))).toBe(true);
    // Ids never go backwards, so the next reconnect resumes from the newest point.
    const ids = s2.frames.map((f) => Number(f.id));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));

    // Live again after the replay.
    await visitor(chat, "live again");
    await s2.next((f) => f.event === "message_created" && f.data.message.text === "live again");
  });

  test("events without a conversation (typing) pass through without moving the cursor", async () => {
    const chat = `typing-${crypto.randomUUID()}`;
    const accepted = (await visitor(chat, "typing test")).body.result;
    const s = await inboxStream(user.token);
    const ready = await s.next((f) => f.event === "ready");
    const { body } = await client.get(`/api/inbox/${accepted.conversation_id}`, user.token);
    await client.post(`/bot${bot.token}/sendChatAction`, { chat_id: body.result.number, action: "typing" });
    const typing = await s.next((f) => f.event === "typing");
    expect(typing.data).toMatchObject({ kind: "typing", chat_id: chat, bot_id: bot.id });
    expect(typing.id).toBe(ready.id);
    await visitor(chat, "after typing");
    await s.next((f) => f.event === "message_created" && f.data.message.text === "after typing");
  });

  test("a cursor older than the replay window asks the client to reload", async () => {
    const s = await inboxStream(user.token, {}, `?since=${Date.now() - REPLAY_MAX_AGE_MS - 60_000}`);
    const reset = await s.next((f) => f.event === "reset");
    expect(reset.data.reason).toContain("reload");
    await s.next((f) => f.event === "ready");
  });

  test("a malformed Last-Event-ID is a 400", async () => {
    const s = await inboxStream(user.token, { "last-event-id": "yesterday" });
    expect(s.status).toBe(400);
  });
});
