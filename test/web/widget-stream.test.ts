// GET /api/messages/stream: live messages of a widget chat, resumable by Last-Event-ID.
// Runs in both modes (memory bus + PGlite, NATS + Postgres).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sharedHandlerCount } from "../../src/domain/feed.ts";
import { createTestBot, registerUser, testClient, type Client, type TestBot, type TestUser } from "../support/harness.ts";
import { eventually as waitUntil } from "../support/eventually.ts";
import { openStream, type OpenStream } from "./sse.ts";

let client: Client;
let user: TestUser;
let bot: TestBot;
const open: OpenStream[] = [];

beforeAll(async () => {
  client = await testClient();
  user = await registerUser(client);
  bot = await createTestBot(client, user, "Stream bot");
});

afterAll(async () => {
  for (const s of open) await s.close();
  await client.platform.close();
});

async function stream(path: string, headers: Record<string, string> = {}) {
  const s = await openStream(client.app, path, headers);
  open.push(s);
  return s;
}

const visitor = (chat: string, text: string, extra: Record<string, unknown> = {}) =>
  client.post("/api/messages", { widget_key: bot.widget_key, chat_id: chat, text, ...extra });

const isMessage = (f: { event: string }) => f.event === "message";

/** The bus delivers asynchronously (NATS in production mode). */
const eventually = (check: () => boolean, what: string, timeoutMs = 15_000) => waitUntil(what, check, timeoutMs);

describe("widget stream", () => {
  test("delivers visitor, operator and bot messages live with message_id as the event id", async () => {
    const chat = `live-${crypto.randomUUID()}`;
    const s = await stream(`/api/messages/stream?widget_key=${bot.widget_key}&chat_id=${chat}`);
    expect(s.status).toBe(200);
    expect(s.headers.get("content-type")).toStartWith("text/event-stream");
    const ready = await s.next((f) => f.event === "ready");
    expect(ready.id).toBe("0");

    const accepted = (await visitor(chat, "hello")).body.result;
    const first = await s.next(isMessage);
    expect(first.id).toBe(accepted.message_id);
    expect(first.data).toMatchObject({ id: accepted.id, text: "hello", direction: "in", sender: "user", chat_id: chat });

    await client.post(`/api/inbox/${accepted.conversation_id}`, { text: "operator here" }, user.token);
    expect((await s.next(isMessage)).data).toMatchObject({ text: "operator here", sender: "operator", direction: "out" });

    const sent = await client.request("POST", `/api/bots/${bot.id}/send-message`, { body: { chat_id: chat, text: "bot here" }, token: bot.token });
    expect(sent.status).toBe(200);
    const fromBot = await s.next(isMessage);
    expect(fromBot.data).toMatchObject({ text: "bot here", sender: "bot" });
    expect(Number(fromBot.id)).toBe(Number(sent.body.result.message_id));
  });

  test("a reconnect with Last-Event-ID (or since) misses nothing and repeats nothing", async () => {
    const chat = `resume-${crypto.randomUUID()}`;
    const accepted = (await visitor(chat, "one")).body.result;
    const s1 = await stream(`/api/messages/stream?widget_key=${bot.widget_key}&chat_id=${chat}&since=0`);
    const seen = await s1.collect(1, isMessage);
    expect(seen.map((f) => f.data.text)).toEqual(["one"]);
    await s1.close();

    // While the client is away: a visitor message, an operator reply, a bot reply.
    await visitor(chat, "two");
    await client.post(`/api/inbox/${accepted.conversation_id}`, { text: "three" }, user.token);
    await client.request("POST", `/api/bots/${bot.id}/send-message`, { body: { chat_id: chat, text: "four" }, token: bot.token });

    const s2 = await stream(`/api/messages/stream?widget_key=${bot.widget_key}&chat_id=${chat}`, { "last-event-id": seen[0]!.id! });
    const missed = await s2.collect(3, isMessage);
    expect(missed.map((f) => f.data.text)).toEqual(["two", "three", "four"]);
    const ids = missed.map((f) => Number(f.id));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(ids[0]).toBeGreaterThan(Number(seen[0]!.id));

    // Live again after the catch-up.
    await visitor(chat, "five");
    expect((await s2.next(isMessage)).data.text).toBe("five");
    expect(s2.frames.filter(isMessage).map((f) => f.data.text)).toEqual(["two", "three", "four", "five"]);

    // `since` does the same for a client that cannot set the header.
    const s3 = await stream(`/api/messages/stream?widget_key=${bot.widget_key}&chat_id=${chat}&since=${missed[1]!.id}`);
    expect((await s3.collect(2, isMessage)).map((f) => f.data.text)).toEqual(["four", "five"]);
  });

  test("without a cursor the stream starts at the chat's latest message", async () => {
    const chat = `fresh-${crypto.randomUUID()}`;
    const old = (await visitor(chat, "before")).body.result;
    const s = await stream(`/api/messages/stream?bot_id=${bot.id}&chat_id=${chat}`);
    expect((await s.next((f) => f.event === "ready")).id).toBe(old.message_id);
    await visitor(chat, "after");
    expect((await s.next(isMessage)).data.text).toBe("after");
    expect(s.frames.filter(isMessage)).toHaveLength(1);
  });

  test("edits and deletions of sent messages arrive without moving the cursor", async () => {
    const chat = `edit-${crypto.randomUUID()}`;
    await visitor(chat, "hi");
    const s = await stream(`/api/messages/stream?widget_key=${bot.widget_key}&chat_id=${chat}&since=0`);
    await s.next(isMessage);
    const sent = await client.request("POST", `/api/bots/${bot.id}/send-message`, { body: { chat_id: chat, text: "typo" }, token: bot.token });
    const messageId = sent.body.result.message_id;
    await s.next(isMessage);
    await client.request("POST", `/api/bots/${bot.id}/edit-message-text`, { body: { message_id: messageId, text: "fixed" }, token: bot.token });
    const edited = await s.next((f) => f.event === "message_updated");
    expect(edited.id).toBeUndefined();
    expect(edited.data).toMatchObject({ text: "fixed", message_id: String(messageId) });
    await client.request("POST", `/api/bots/${bot.id}/delete-message`, { body: { message_id: messageId }, token: bot.token });
    const deleted = await s.next((f) => f.event === "message_deleted");
    expect(deleted.data).toMatchObject({ message_id: String(messageId) });
    expect(deleted.data.text).toBeUndefined();
  });

  test("the bot's typing action reaches the chat's stream; other events there do not break it", async () => {
    const chat = `typing-${crypto.randomUUID()}`;
    const accepted = (await visitor(chat, "hello?")).body.result;
    const s = await stream(`/api/messages/stream?widget_key=${bot.widget_key}&chat_id=${chat}`);
    await s.next((f) => f.event === "ready");
    const { body } = await client.get(`/api/inbox/${accepted.conversation_id}`, user.token);
    const res = await client.post(`/bot${bot.token}/sendChatAction`, { chat_id: body.result.number, action: "typing" });
    expect(res.status).toBe(200);
    const typing = await s.next((f) => f.event === "typing");
    expect(typing.id).toBeUndefined();
    await visitor(chat, "still there");
    expect((await s.next(isMessage)).data.text).toBe("still there");
  });

  test("chats of private channels stream nothing, like the public history", async () => {
    const chat = `crm-${crypto.randomUUID()}`;
    await client.post("/api/messages", { bot_id: bot.id, chat_id: chat, channel: "crm", text: "private" });
    const s = await stream(`/api/messages/stream?widget_key=${bot.widget_key}&chat_id=${chat}&since=0`);
    await s.next((f) => f.event === "ready");
    await client.post("/api/messages", { bot_id: bot.id, chat_id: chat, channel: "crm", text: "still private" });
    // A public chat's message sent afterwards proves the private one had its chance to leak.
    const other = `pub-${crypto.randomUUID()}`;
    const probe = await stream(`/api/messages/stream?widget_key=${bot.widget_key}&chat_id=${other}`);
    await probe.next((f) => f.event === "ready");
    await visitor(other, "probe");
    await probe.next(isMessage);
    await Bun.sleep(200);
    expect(s.frames.filter(isMessage)).toEqual([]);
  });

  test("bad requests are refused before the stream opens", async () => {
    expect((await stream(`/api/messages/stream?chat_id=x`)).status).toBe(400);
    expect((await stream(`/api/messages/stream?widget_key=wk_nope&chat_id=x`)).status).toBe(404);
    const badCursor = await stream(`/api/messages/stream?widget_key=${bot.widget_key}&chat_id=x`, { "last-event-id": "abc" });
    expect(badCursor.status).toBe(400);
    expect(badCursor.json.error).toContain("Last-Event-ID");
  });

  test("subscriptions are released when the client goes away", async () => {
    const before = sharedHandlerCount(client.platform.bus);
    const s = await stream(`/api/messages/stream?widget_key=${bot.widget_key}&chat_id=gone-${crypto.randomUUID()}`);
    await s.next((f) => f.event === "ready");
    expect(sharedHandlerCount(client.platform.bus)).toBe(before + 1);
    await s.close();
    await eventually(() => sharedHandlerCount(client.platform.bus) === before, "handler released");
  });
});

describe("widget stream and draining", () => {
  test("the stream ends cleanly when the server starts draining", async () => {
    const own = await testClient();
    const u = await registerUser(own);
    const b = await createTestBot(own, u);
    const s = await openStream(own.app, `/api/messages/stream?widget_key=${b.widget_key}&chat_id=drain`);
    await s.next((f) => f.event === "ready");
    own.platform.beginShutdown();
    await s.ended;
    expect(sharedHandlerCount(own.platform.bus)).toBe(0);
    await own.platform.close();
  });
});
