import { beforeAll, describe, expect, test } from "bun:test";
import { createTestBot, registerUser, testClient, type Client, type TestBot, type TestUser } from "../support/harness.ts";

let client: Client;
let alice: TestUser;
let bot: TestBot;
beforeAll(async () => {
  client = await testClient();
  alice = await registerUser(client);
  bot = await createTestBot(client, alice);
});

const chat = () => `chat-${crypto.randomUUID()}`;

describe("POST /api/messages", () => {
  test("accepts a message and names message, conversation and chat", async () => {
    const chatId = chat();
    const res = await client.post("/api/messages", { bot_id: bot.id, chat_id: chatId, text: "hello" });
    expect(res.status).toBe(200);
    expect(res.body.result).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      message_id: expect.stringMatching(/^\d+$/),
      conversation_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      chat_id: chatId,
      created_at: expect.any(String),
    });
  });

  test("messages of one chat land in one conversation with increasing message ids", async () => {
    const chatId = chat();
    const a = await client.post("/api/messages", { bot_id: bot.id, chat_id: chatId, text: "one" });
    const b = await client.post("/api/messages", { bot_id: bot.id, chat_id: chatId, text: "two" });
    expect(b.body.result.conversation_id).toBe(a.body.result.conversation_id);
    expect(Number(b.body.result.message_id)).toBeGreaterThan(Number(a.body.result.message_id));
  });

  test("without chat_id, external_chat_id keys the conversation; without both a new chat is made", async () => {
    const ext = chat();
    const a = await client.post("/api/messages", { bot_id: bot.id, external_chat_id: ext, text: "x" });
    expect(a.body.result.chat_id).toBe(ext);
    const b = await client.post("/api/messages", { bot_id: bot.id, text: "y" });
    const c = await client.post("/api/messages", { bot_id: bot.id, text: "z" });
    expect(b.body.result.chat_id).toBeString();
    expect(b.body.result.conversation_id).not.toBe(c.body.result.conversation_id);
  });

  test("widget_key selects the bot and defaults the channel to widget; bot_id defaults to custom_api", async () => {
    const byKey = await client.post("/api/messages", { widget_key: bot.widget_key, chat_id: chat(), text: "hi" });
    expect(byKey.status).toBe(200);
    const byId = await client.post("/api/messages", { bot_id: bot.id, chat_id: chat(), text: "hi" });
    const inbox = await client.get(`/api/inbox?bot_id=${bot.id}&limit=500`, alice.token);
    const channelOf = (id: string) => inbox.body.result.find((c: { id: string }) => c.id === id).channel;
    expect(channelOf(byKey.body.result.conversation_id)).toBe("widget");
    expect(channelOf(byId.body.result.conversation_id)).toBe("custom_api");
  });

  test("bot selection: neither is 400, disagreeing is 400, unknown is 404", async () => {
    const other = await createTestBot(client, alice, "Other");
    const neither = await client.post("/api/messages", { chat_id: chat(), text: "x" });
    expect(neither.status).toBe(400);
    expect(neither.body.error).toContain("bot_id");
    const mismatch = await client.post("/api/messages", { bot_id: bot.id, widget_key: other.widget_key, text: "x" });
    expect(mismatch.status).toBe(400);
    const unknownId = await client.post("/api/messages", { bot_id: crypto.randomUUID(), text: "x" });
    expect(unknownId.status).toBe(404);
    const unknownKey = await client.post("/api/messages", { widget_key: "wk_nope", text: "x" });
    expect(unknownKey.status).toBe(404);
    const agreeing = await client.post("/api/messages", { bot_id: bot.id, widget_key: bot.widget_key, text: "x" });
    expect(agreeing.status).toBe(200);
  });

  test("an inactive channel is 403 and stores nothing", async () => {
    const own = await createTestBot(client, alice, "Quiet");
    await client.patch(`/api/bots/${own.id}/channels`, { channel_type: "crm", is_active: false }, alice.token);
    const res = await client.post("/api/messages", { bot_id: own.id, channel: "crm", chat_id: "c1", text: "x" });
    expect(res.status).toBe(403);
    const inbox = await client.get(`/api/inbox?bot_id=${own.id}`, alice.token);
    expect(inbox.body.result).toEqual([]);
  });

  test.each([
    [{ text: "" }, "text"],
    [{ text: "x".repeat(4097) }, "text"],
    [{}, "text"],
    [{ text: 5 }, "text"],
    [{ text: "x", bot_id: "not-a-uuid" }, "bot_id"],
    [{ text: "x", channel: "telegram" }, "channel"],
    [{ text: "x", timestamp: "yesterday" }, "timestamp"],
    [{ text: "x", user: { id: 5 } }, "user.id"],
    [{ text: "x", metadata: "nope" }, "metadata"],
  ])("%j is 400 naming %s", async (body, field) => {
    const res = await client.post("/api/messages", { bot_id: bot.id, ...body });
    expect(res.status).toBe(400);
    expect(res.body.ok).toBe(false);
    expect(res.body.error).toContain(field);
  });

  test("4096 characters are accepted", async () => {
    const res = await client.post("/api/messages", { bot_id: bot.id, chat_id: chat(), text: "x".repeat(4096) });
    expect(res.status).toBe(200);
  });

  test("timestamp in seconds or milliseconds sets the message time; metadata is kept", async () => {
    const chatId = chat();
    await client.post("/api/messages", { bot_id: bot.id, chat_id: chatId, channel: "web", text: "s", timestamp: 1700000000, metadata: { page_url: "https://a.example/p", x: [1] } });
    await client.post("/api/messages", { bot_id: bot.id, chat_id: chatId, channel: "web", text: "ms", timestamp: 1700000001000 });
    const history = await client.get(`/api/messages?bot_id=${bot.id}&chat_id=${chatId}`);
    expect(history.body.result.map((m: { created_at: string }) => m.created_at)).toEqual([
      "2023-11-14T22:13:20.000Z",
      "2023-11-14T22:13:21.000Z",
    ]);
    expect(history.body.result[0].metadata).toEqual({ page_url: "https://a.example/p", x: [1] });
  });

  test("user and external_user_id make one contact with the given names", async () => {
    const chatId = chat();
    const a = await client.post("/api/messages", { bot_id: bot.id, chat_id: chatId, text: "a", user: { id: "u-1", first_name: "Ann" } });
    await client.post("/api/messages", { bot_id: bot.id, chat_id: chatId, text: "b", user: { id: "u-1", last_name: "Lee" } });
    const detail = await client.get(`/api/inbox/${a.body.result.conversation_id}`, alice.token);
    expect(detail.body.result.contacts).toHaveLength(1);
    expect(detail.body.result.contacts[0]).toMatchObject({ external_user_id: "u-1", first_name: "Ann", last_name: "Lee" });
    expect(detail.body.result.contact.number).toBeGreaterThan(0);
  });
});

describe("idempotency", () => {
  test("a repeated client_message_id returns the first result and creates nothing", async () => {
    const chatId = chat();
    const body = { bot_id: bot.id, chat_id: chatId, text: "once", metadata: { client_message_id: `cm-${chatId}` } };
    const first = await client.post("/api/messages", body);
    const again = await client.post("/api/messages", { ...body, text: "changed" });
    expect(again.status).toBe(200);
    expect(again.body.result).toEqual(first.body.result);
    const detail = await client.get(`/api/inbox/${first.body.result.conversation_id}`, alice.token);
    expect(detail.body.result.messages.map((m: { text: string }) => m.text)).toEqual(["once"]);
    expect(detail.body.result.message_count).toBe(1);
  });

  test("the Idempotency-Key header works the same way", async () => {
    const chatId = chat();
    const send = () => client.request("POST", "/api/messages", { body: { bot_id: bot.id, chat_id: chatId, text: "k" }, headers: { "idempotency-key": `key-${chatId}` } });
    const a = await send();
    const b = await send();
    expect(b.body.result).toEqual(a.body.result);
  });

  test("20 concurrent repeats of one client_message_id make exactly one message", async () => {
    const chatId = chat();
    const body = { bot_id: bot.id, chat_id: chatId, text: "race", metadata: { client_message_id: `race-${chatId}` } };
    const results = await Promise.all(Array.from({ length: 20 }, () => client.post("/api/messages", body)));
    expect(results.every((r) => r.status === 200)).toBe(true);
    expect(new Set(results.map((r) => r.body.result.id)).size).toBe(1);
    const detail = await client.get(`/api/inbox/${results[0]!.body.result.conversation_id}`, alice.token);
    expect(detail.body.result.messages).toHaveLength(1);
  });

  test("200 concurrent POSTs to one new chat make one conversation and 200 messages", async () => {
    const chatId = chat();
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) => client.post("/api/messages", { bot_id: bot.id, chat_id: chatId, text: `m${i}` })),
    );
    expect(results.map((r) => r.status).filter((s) => s !== 200)).toEqual([]);
    const conversations = new Set(results.map((r) => r.body.result.conversation_id));
    expect(conversations.size).toBe(1);
    const detail = await client.get(`/api/inbox/${[...conversations][0]}`, alice.token);
    expect(detail.body.result.message_count).toBe(200);
    expect(detail.body.result.messages).toHaveLength(200);
    expect(new Set(results.map((r) => r.body.result.message_id)).size).toBe(200);
  });
});

describe("GET /api/messages", () => {
  test("returns incoming and outgoing messages oldest first, the latest `limit`, with before paging", async () => {
    const chatId = chat();
    let conversationId = "";
    for (let i = 1; i <= 5; i++) {
      const r = await client.post("/api/messages", { widget_key: bot.widget_key, chat_id: chatId, text: `m${i}` });
      conversationId = r.body.result.conversation_id;
    }
    await client.post(`/api/inbox/${conversationId}`, { text: "operator here" }, alice.token);
    const all = await client.get(`/api/messages?widget_key=${bot.widget_key}&chat_id=${chatId}`);
    expect(all.status).toBe(200);
    expect(all.body.result.map((m: { text: string }) => m.text)).toEqual(["m1", "m2", "m3", "m4", "m5", "operator here"]);
    expect(all.body.result[5]).toMatchObject({ direction: "out", sender: "operator", chat_id: chatId, channel: "widget" });
    const last2 = await client.get(`/api/messages?widget_key=${bot.widget_key}&chat_id=${chatId}&limit=2`);
    expect(last2.body.result.map((m: { text: string }) => m.text)).toEqual(["m5", "operator here"]);
    const before = last2.body.result[0].message_id;
    const older = await client.get(`/api/messages?widget_key=${bot.widget_key}&chat_id=${chatId}&limit=2&before=${before}`);
    expect(older.body.result.map((m: { text: string }) => m.text)).toEqual(["m3", "m4"]);
  });

  test("limit clamps to 200 instead of failing", async () => {
    const chatId = chat();
    await client.post("/api/messages", { widget_key: bot.widget_key, chat_id: chatId, text: "x" });
    const res = await client.get(`/api/messages?widget_key=${bot.widget_key}&chat_id=${chatId}&limit=100000`);
    expect(res.status).toBe(200);
  });

  test("validation: chat_id required, bot selector required, bad limit", async () => {
    expect((await client.get(`/api/messages?widget_key=${bot.widget_key}`)).body.error).toContain("chat_id");
    expect((await client.get(`/api/messages?chat_id=x`)).status).toBe(400);
    const bad = await client.get(`/api/messages?widget_key=${bot.widget_key}&chat_id=x&limit=abc`);
    expect(bad.status).toBe(400);
    expect(bad.body.error).toContain("limit");
    expect((await client.get(`/api/messages?widget_key=${bot.widget_key}&chat_id=x&limit=0`)).status).toBe(400);
  });

  test("history of CRM or form chats is not public", async () => {
    const chatId = chat();
    await client.post("/api/messages", { bot_id: bot.id, chat_id: chatId, channel: "crm", text: "private" });
    const res = await client.get(`/api/messages?bot_id=${bot.id}&chat_id=${chatId}`);
    expect(res.status).toBe(200);
    expect(res.body.result).toEqual([]);
  });
});
