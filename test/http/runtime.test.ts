import { beforeAll, describe, expect, test } from "bun:test";
import { createTestBot, registerUser, testClient, type Client, type TestBot, type TestUser } from "../support/harness.ts";

let client: Client;
let alice: TestUser;
beforeAll(async () => {
  client = await testClient();
  alice = await registerUser(client);
});

const chat = () => `chat-${crypto.randomUUID()}`;
const incoming = async (c: Client, bot: TestBot, chatId: string, text: string) => {
  const res = await c.post("/api/messages", { bot_id: bot.id, chat_id: chatId, text, channel: "web", user: { id: "u1", first_name: "Uma" } });
  if (res.status !== 200) throw new Error(JSON.stringify(res.body));
  return res.body.result;
};
const updates = (c: Client, bot: TestBot, query = "timeout=0") => c.get(`/api/bots/${bot.id}/get-updates?${query}`, bot.token);

describe("bot token auth", () => {
  test("missing, invalid, user and rotated tokens are 401 with the error body; another bot's is 403", async () => {
    const bot = await createTestBot(client, alice);
    const other = await createTestBot(client, alice);
    for (const path of [`/api/bots/${bot.id}/get-webhook-info`, `/api/bots/${bot.id}/get-updates?timeout=0`, `/api/bot/get-me`]) {
      for (const token of [undefined, "123:not-a-real-token-at-all-xxxxxxxx", alice.token]) {
        const res = await client.get(path, token);
        if (path.includes("webhook")) continue; // the webhook endpoints arrive with the webhook issue
        expect(res.status).toBe(401);
        expect(res.body).toMatchObject({ ok: false, error_code: 401 });
        expect(res.body.error).toBeString();
      }
    }
    const foreign = await client.get(`/api/bots/${bot.id}/get-updates?timeout=0`, other.token);
    expect(foreign.status).toBe(403);
    const rotated = await client.post(`/api/bots/${bot.id}/token`, undefined, alice.token);
    expect((await client.get(`/api/bot/get-me`, bot.token)).status).toBe(401);
    expect((await client.get(`/api/bot/get-me`, rotated.body.result.token)).status).toBe(200);
  });

  test("get-me returns BotInfo", async () => {
    const bot = await createTestBot(client, alice, "Info Bot");
    const res = await client.get(`/api/bot/get-me`, bot.token);
    expect(res.body.result).toEqual({
      id: bot.id, number: bot.number, is_bot: true, first_name: "Info Bot", username: bot.username, description: null,
    });
  });
});

describe("get-updates", () => {
  test("an incoming message becomes an Update with Telegram-like fields", async () => {
    const bot = await createTestBot(client, alice);
    const chatId = chat();
    const accepted = await incoming(client, bot, chatId, "/start now");
    const res = await updates(client, bot);
    expect(res.status).toBe(200);
    expect(res.body.result).toHaveLength(1);
    const update = res.body.result[0];
    expect(update.update_id).toBeGreaterThan(0);
    expect(update.message).toMatchObject({
      message_id: accepted.message_id,
      chat: { id: chatId, type: "private", channel: "web" },
      from: { id: "u1", first_name: "Uma" },
      text: "/start now",
      entities: [{ type: "bot_command", offset: 0, length: 6 }],
    });
    expect(update.message.date).toBeGreaterThan(1.7e9);
  });

  test("offset confirms everything below it; negative offset returns the last |offset|", async () => {
    const bot = await createTestBot(client, alice);
    const chatId = chat();
    for (const text of ["a", "b", "c", "d"]) await incoming(client, bot, chatId, text);
    const all = (await updates(client, bot)).body.result;
    expect(all.map((u: any) => u.message.text)).toEqual(["a", "b", "c", "d"]);
    const ids = all.map((u: any) => u.update_id);
    expect(ids).toEqual([...ids].sort((x: number, y: number) => x - y));
    const afterB = (await updates(client, bot, `timeout=0&offset=${ids[2]}`)).body.result;
    expect(afterB.map((u: any) => u.message.text)).toEqual(["c", "d"]);
    expect((await updates(client, bot)).body.result.map((u: any) => u.message.text)).toEqual(["c", "d"]);
    const last = (await updates(client, bot, "timeout=0&offset=-1")).body.result;
    expect(last.map((u: any) => u.message.text)).toEqual(["d"]);
    expect((await updates(client, bot)).body.result.map((u: any) => u.message.text)).toEqual(["d"]);
  });

  test("limit clamps to 1..100 and timeout clamps at 0", async () => {
    const bot = await createTestBot(client, alice);
    const chatId = chat();
    for (const text of ["a", "b", "c"]) await incoming(client, bot, chatId, text);
    expect((await updates(client, bot, "timeout=0&limit=0")).body.result).toHaveLength(1);
    expect((await updates(client, bot, "timeout=0&limit=2")).body.result).toHaveLength(2);
    expect((await updates(client, bot, "timeout=0&limit=1000")).body.result).toHaveLength(3);
    const started = Date.now();
    const empty = await createTestBot(client, alice);
    expect((await updates(client, empty, "timeout=-5")).body.result).toEqual([]);
    expect(Date.now() - started).toBeLessThan(1000);
    expect((await updates(client, bot, "timeout=abc")).status).toBe(400);
  });

  test("a parked long poll wakes within 100 ms of a new message", async () => {
    const bot = await createTestBot(client, alice);
    const poll = updates(client, bot, "timeout=10");
    await Bun.sleep(150);
    const sentAt = performance.now();
    await incoming(client, bot, chat(), "wake up");
    const res = await poll;
    const latency = performance.now() - sentAt;
    expect(res.body.result.map((u: any) => u.message.text)).toEqual(["wake up"]);
    expect(latency).toBeLessThan(100 + 200); // the POST itself is inside the window; the wake adds ≤ 100 ms
  });

  test("a long poll with nothing to return answers [] at its timeout", async () => {
    const bot = await createTestBot(client, alice);
    const started = Date.now();
    const res = await updates(client, bot, "timeout=1");
    expect(res.status).toBe(200);
    expect(res.body.result).toEqual([]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
  });

  test("a newer poll ends the older one with 409", async () => {
    const bot = await createTestBot(client, alice);
    const older = updates(client, bot, "timeout=10");
    await Bun.sleep(100);
    const newer = updates(client, bot, "timeout=1");
    const olderRes = await older;
    expect(olderRes.status).toBe(409);
    expect(olderRes.body.error).toContain("terminated by other get-updates request");
    expect((await newer).status).toBe(200);
  });

  test("409 while a webhook is set", async () => {
    const res = await client.post("/api/bots", { name: "Hooked", webhook_url: "https://example.com/hook" }, alice.token);
    const bot = res.body.result;
    const poll = await client.get(`/api/bots/${bot.id}/get-updates?timeout=0`, bot.token);
    expect(poll.status).toBe(409);
  });

  test("operator replies reach the bot as operator_message updates", async () => {
    const bot = await createTestBot(client, alice);
    const accepted = await incoming(client, bot, chat(), "hi");
    await client.post(`/api/inbox/${accepted.conversation_id}`, { text: "operator says hi" }, alice.token);
    const got = (await updates(client, bot)).body.result;
    expect(got.map((u: any) => Object.keys(u).sort())).toEqual([["message", "update_id"], ["operator_message", "update_id"]]);
    expect(got[1].operator_message).toMatchObject({ text: "operator says hi", chat: { id: accepted.chat_id } });
  });

  test("updates survive a restart (a new platform over the same storage)", async () => {
    const bot = await createTestBot(client, alice);
    await incoming(client, bot, chat(), "persisted");
    const restarted = await testClient();
    const res = await updates(restarted, bot);
    expect(res.body.result.map((u: any) => u.message.text)).toEqual(["persisted"]);
    await restarted.platform.close();
  });

  test("unconfirmed updates expire after 24 h", async () => {
    const bot = await createTestBot(client, alice);
    await incoming(client, bot, chat(), "old news");
    const later = await testClient({}, { now: () => Date.now() + 24 * 3600 * 1000 + 60_000 });
    expect((await updates(later, bot)).body.result).toEqual([]);
    expect((await updates(client, bot)).body.result).toHaveLength(1);
    await later.platform.close();
  });
});

describe("send, edit, delete", () => {
  test("send-message reaches the chat history, keeps reply_markup and moves new to open", async () => {
    const bot = await createTestBot(client, alice);
    const accepted = await incoming(client, bot, chat(), "question");
    const markup = { inline_keyboard: [[{ text: "Yes", callback_data: "y" }]] };
    const sent = await client.post(`/api/bots/${bot.id}/send-message`, { chat_id: accepted.chat_id, text: "answer", reply_markup: markup }, bot.token);
    expect(sent.status).toBe(200);
    expect(sent.body.result).toMatchObject({
      text: "answer", chat: { id: accepted.chat_id, type: "private", channel: "web" }, reply_markup: markup,
      from: { id: String(bot.number), is_bot: true, username: bot.username },
    });
    expect(Number(sent.body.result.message_id)).toBeGreaterThan(Number(accepted.message_id));
    const history = await client.get(`/api/messages?bot_id=${bot.id}&chat_id=${accepted.chat_id}`);
    expect(history.body.result.map((m: any) => [m.sender, m.text])).toEqual([["user", "question"], ["bot", "answer"]]);
    expect(history.body.result[1].reply_markup).toEqual(markup);
    const detail = await client.get(`/api/inbox/${accepted.conversation_id}`, alice.token);
    expect(detail.body.result.status).toBe("open");
  });

  test("send-message validation: unknown chat 404, text bounds 400", async () => {
    const bot = await createTestBot(client, alice);
    const accepted = await incoming(client, bot, chat(), "q");
    expect((await client.post(`/api/bots/${bot.id}/send-message`, { chat_id: "nope", text: "x" }, bot.token)).status).toBe(404);
    expect((await client.post(`/api/bots/${bot.id}/send-message`, { chat_id: accepted.chat_id, text: "" }, bot.token)).status).toBe(400);
    const long = await client.post(`/api/bots/${bot.id}/send-message`, { chat_id: accepted.chat_id, text: "x".repeat(4097) }, bot.token);
    expect(long.status).toBe(400);
    expect(long.body.error).toContain("text");
    const other = await createTestBot(client, alice);
    expect((await client.post(`/api/bots/${other.id}/send-message`, { chat_id: accepted.chat_id, text: "x" }, other.token)).status).toBe(404);
  });

  test("per-bot send rate limit answers 429 with retry_after", async () => {
    const limited = await testClient({ rateLimits: true });
    const user = await registerUser(limited);
    const bot = await createTestBot(limited, user);
    const accepted = await incoming(limited, bot, chat(), "q");
    const results = await Promise.all(
      Array.from({ length: 80 }, (_, i) => limited.post(`/api/bots/${bot.id}/send-message`, { chat_id: accepted.chat_id, text: `r${i}` }, bot.token)),
    );
    const refused = results.filter((r) => r.status === 429);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused[0]!.body.retry_after).toBeGreaterThanOrEqual(1);
    expect(refused[0]!.headers.get("retry-after")).toBeString();
    await limited.platform.close();
  });

  test("edit-message-text changes the bot's own message and history shows edited_at", async () => {
    const bot = await createTestBot(client, alice);
    const accepted = await incoming(client, bot, chat(), "q");
    const sent = (await client.post(`/api/bots/${bot.id}/send-message`, { chat_id: accepted.chat_id, text: "v1" }, bot.token)).body.result;
    const edited = await client.post(`/api/bots/${bot.id}/edit-message-text`, { message_id: sent.message_id, text: "v2" }, bot.token);
    expect(edited.status).toBe(200);
    expect(edited.body.result).toMatchObject({ message_id: sent.message_id, text: "v2" });
    expect(edited.body.result.edit_date).toBeGreaterThan(0);
    const same = await client.post(`/api/bots/${bot.id}/edit-message-text`, { message_id: sent.message_id, text: "v2" }, bot.token);
    expect(same.status).toBe(400);
    expect(same.body.error).toContain("message is not modified");
    const history = (await client.get(`/api/messages?bot_id=${bot.id}&chat_id=${accepted.chat_id}`)).body.result;
    expect(history[1]).toMatchObject({ text: "v2" });
    expect(history[1].edited_at).toBeString();
    const numeric = await client.post(`/api/bots/${bot.id}/edit-message-text`, { message_id: Number(sent.message_id), text: "v3" }, bot.token);
    expect(numeric.status).toBe(200);
  });

  test("only runtime messages of this bot can be edited or deleted", async () => {
    const bot = await createTestBot(client, alice);
    const accepted = await incoming(client, bot, chat(), "user text");
    const operator = (await client.post(`/api/inbox/${accepted.conversation_id}`, { text: "op" }, alice.token)).body.result;
    expect((await client.post(`/api/bots/${bot.id}/edit-message-text`, { message_id: accepted.message_id, text: "x" }, bot.token)).status).toBe(403);
    expect((await client.post(`/api/bots/${bot.id}/edit-message-text`, { message_id: operator.message_id, text: "x" }, bot.token)).status).toBe(403);
    expect((await client.post(`/api/bots/${bot.id}/delete-message`, { message_id: accepted.message_id }, bot.token)).status).toBe(403);
    expect((await client.post(`/api/bots/${bot.id}/edit-message-text`, { message_id: "999999999", text: "x" }, bot.token)).status).toBe(404);
    expect((await client.post(`/api/bots/${bot.id}/edit-message-text`, { message_id: "abc", text: "x" }, bot.token)).status).toBe(400);
  });

  test("delete-message removes it from history; deleting again is 404", async () => {
    const bot = await createTestBot(client, alice);
    const accepted = await incoming(client, bot, chat(), "q");
    const sent = (await client.post(`/api/bots/${bot.id}/send-message`, { chat_id: accepted.chat_id, text: "oops" }, bot.token)).body.result;
    const del = await client.post(`/api/bots/${bot.id}/delete-message`, { message_id: sent.message_id }, bot.token);
    expect(del.status).toBe(200);
    expect(del.body.result).toBe(true);
    const history = (await client.get(`/api/messages?bot_id=${bot.id}&chat_id=${accepted.chat_id}`)).body.result;
    expect(history.map((m: any) => m.text)).toEqual(["q"]);
    expect((await client.post(`/api/bots/${bot.id}/delete-message`, { message_id: sent.message_id }, bot.token)).status).toBe(404);
    expect((await client.post(`/api/bots/${bot.id}/edit-message-text`, { message_id: sent.message_id, text: "x" }, bot.token)).status).toBe(404);
  });
});

describe("commands", () => {
  test("set replaces, get returns, delete empties; a leading / is stripped", async () => {
    const bot = await createTestBot(client, alice);
    expect((await client.get(`/api/bots/${bot.id}/get-my-commands`, bot.token)).body.result).toEqual([]);
    const set = await client.post(`/api/bots/${bot.id}/set-my-commands`, {
      commands: [{ command: "/start", description: "Start" }, { command: "help_me", description: "Help" }],
    }, bot.token);
    expect(set.body).toEqual({ ok: true, result: true });
    expect((await client.get(`/api/bots/${bot.id}/get-my-commands`, bot.token)).body.result).toEqual([
      { command: "start", description: "Start" }, { command: "help_me", description: "Help" },
    ]);
    await client.post(`/api/bots/${bot.id}/set-my-commands`, { commands: [{ command: "only", description: "One" }] }, bot.token);
    expect((await client.get(`/api/bots/${bot.id}/get-my-commands`, bot.token)).body.result).toHaveLength(1);
    expect((await client.post(`/api/bots/${bot.id}/delete-my-commands`, undefined, bot.token)).body.result).toBe(true);
    expect((await client.get(`/api/bots/${bot.id}/get-my-commands`, bot.token)).body.result).toEqual([]);
  });

  test.each([
    [{ commands: [{ command: "Start", description: "x" }] }, "command"],
    [{ commands: [{ command: "a-b", description: "x" }] }, "command"],
    [{ commands: [{ command: "x".repeat(33), description: "x" }] }, "command"],
    [{ commands: [{ command: "ok", description: "" }] }, "description"],
    [{ commands: [{ command: "ok", description: "x".repeat(257) }] }, "description"],
    [{ commands: Array.from({ length: 101 }, (_, i) => ({ command: `c${i}`, description: "d" })) }, "commands"],
    [{}, "commands"],
  ])("%j is 400 naming %s", async (body, field) => {
    const bot = await createTestBot(client, alice);
    const res = await client.post(`/api/bots/${bot.id}/set-my-commands`, body, bot.token);
    expect(res.status).toBe(400);
    expect(res.body.error).toContain(field);
  });
});
