// The facade's wire protocol (docs/design.md §11): addressing, parameter encodings, Telegram's
// error envelope, getUpdates semantics with Telegram's defaults, and the smaller methods.
import { beforeAll, describe, expect, test } from "bun:test";
import { gzipSync } from "node:zlib";
import { createTestBot, registerUser, testClient, type Client, type TestBot, type TestUser } from "../support/harness.ts";

let client: Client;
let alice: TestUser;
beforeAll(async () => {
  client = await testClient();
  alice = await registerUser(client);
});

interface Call {
  query?: Record<string, string>;
  json?: unknown;
  form?: Record<string, string>;
  multipart?: Record<string, string>;
  gzip?: boolean;
  httpMethod?: string;
}

/** One facade call, in whichever encoding a Telegram client might use. */
async function tg(app: Client, token: string, method: string, call: Call = {}) {
  const query = call.query ? `?${new URLSearchParams(call.query)}` : "";
  const headers: Record<string, string> = {};
  let body: BodyInit | undefined;
  if (call.json !== undefined) {
    headers["content-type"] = "application/json";
    body = JSON.stringify(call.json);
  } else if (call.form) {
    headers["content-type"] = "application/x-www-form-urlencoded";
    body = new URLSearchParams(call.form).toString();
  } else if (call.multipart) {
    const form = new FormData();
    for (const [k, v] of Object.entries(call.multipart)) form.append(k, v);
    body = form;
  }
  if (call.gzip && typeof body === "string") {
    headers["content-encoding"] = "gzip";
    body = gzipSync(body);
  }
  const httpMethod = call.httpMethod ?? (body === undefined ? "GET" : "POST");
  const res = await app.app.handle(new Request(`http://test.local/bot${token}/${method}${query}`, { method: httpMethod, headers, body }));
  return { status: res.status, body: (await res.json()) as any };
}

const chat = () => `chat-${crypto.randomUUID()}`;
async function incoming(bot: TestBot, chatId: string, text: string, firstName = "Uma") {
  const res = await client.post("/api/messages", { bot_id: bot.id, chat_id: chatId, text, channel: "web", user: { id: `u-${chatId}`, first_name: firstName, last_name: "Test" } });
  expect(res.status).toBe(200);
  return res.body.result;
}

/** The conversation number a chat_id got: what Telegram clients call chat.id. */
async function chatNumber(bot: TestBot, chatId: string): Promise<number> {
  const res = await client.get(`/api/inbox?bot_id=${bot.id}`, alice.token);
  return res.body.result.find((c: any) => c.chat_id === chatId).number;
}

describe("addressing and envelope", () => {
  test("getMe in Telegram's shape; method names are case-insensitive; GET and POST both work", async () => {
    const bot = await createTestBot(client, alice, "Shape Bot");
    const expected = {
      id: bot.number, is_bot: true, first_name: "Shape Bot", username: bot.username, can_join_groups: false,
      can_read_all_group_messages: false, supports_inline_queries: false, can_connect_to_business: false, has_main_web_app: false,
    };
    for (const [name, httpMethod] of [["getMe", "GET"], ["getme", "POST"], ["GETME", "GET"]] as const) {
      expect(await tg(client, bot.token, name, { httpMethod })).toEqual({ status: 200, body: { ok: true, result: expected } });
    }
  });

  test("errors: Telegram's envelope with the HTTP status equal to error_code", async () => {
    const bot = await createTestBot(client, alice);
    const cases: [string, string, Call, number, string][] = [
      [bot.token, "noSuchMethod", {}, 404, "Not Found: method not found"],
      [`${bot.number}:${"x".repeat(32)}`, "getMe", {}, 401, "Unauthorized"],
      ["not-a-token", "getMe", {}, 401, "Unauthorized"],
      [alice.token, "getMe", {}, 401, "Unauthorized"],
      [bot.token, "sendMessage", { json: { text: "hi" } }, 400, "Bad Request: chat_id is empty"],
      [bot.token, "sendMessage", { json: { chat_id: 1, text: "  " } }, 400, "Bad Request: message text is empty"],
      [bot.token, "sendMessage", { json: { chat_id: 1, text: "x".repeat(4097) } }, 400, "Bad Request: message is too long"],
      [bot.token, "sendMessage", { json: { chat_id: 987654, text: "hi" } }, 400, "Bad Request: chat not found"],
      [bot.token, "sendMessage", { json: { chat_id: "no-such-chat", text: "hi" } }, 400, "Bad Request: chat not found"],
      [bot.token, "getUpdates", { json: { offset: "abc" } }, 400, "Bad Request: offset: expected an integer"],
      [bot.token, "editMessageText", { json: { inline_message_id: "x", text: "y" } }, 400, "Bad Request: inline messages are not supported: use chat_id and message_id"],
      [bot.token, "setWebhook", { json: { url: "ftp://example.com/hook" } }, 400, "Bad Request: bad webhook: url: must use http or https"],
    ];
    for (const [token, method, call, status, description] of cases) {
      const res = await tg(client, token, method, call);
      expect({ method, status: res.status, body: res.body }).toEqual({ method, status, body: { ok: false, error_code: status, description } });
    }
    const malformed = await client.request("POST", `/bot${bot.token}/sendMessage`, { raw: "{oops" });
    expect(malformed.status).toBe(400);
    expect(malformed.body).toMatchObject({ ok: false, error_code: 400 });
    expect(malformed.body.description).toStartWith("Bad Request: can't parse JSON object");
    const huge = await client.request("POST", `/bot${bot.token}/sendMessage`, { raw: JSON.stringify({ chat_id: 1, text: "x".repeat(70_000) }) });
    expect(huge.status).toBe(413);
    expect(huge.body).toEqual({ ok: false, error_code: 413, description: "Request Entity Too Large" });
  });

  test("parameters from the query string, JSON, urlencoded, multipart and gzip bodies; numbers and objects as strings", async () => {
    const bot = await createTestBot(client, alice);
    const chatId = chat();
    await incoming(bot, chatId, "hello");
    const number = await chatNumber(bot, chatId);
    const markup = { inline_keyboard: [[{ text: "A", callback_data: "a" }]] };
    const calls: Call[] = [
      { query: { chat_id: String(number), text: "by query", reply_markup: JSON.stringify(markup) } },
      { json: { chat_id: number, text: "by json", reply_markup: markup, parse_mode: "HTML" } },
      { json: { chat_id: String(number), text: "by json strings", reply_markup: JSON.stringify(markup) } },
      { form: { chat_id: String(number), text: "by form", reply_markup: JSON.stringify(markup), disable_notification: "true" } },
      { multipart: { chat_id: String(number), text: "by multipart", reply_markup: JSON.stringify(markup) } },
      { json: { chat_id: number, text: "by gzip", reply_markup: markup }, gzip: true },
      { query: { chat_id: "0" }, json: { chat_id: number, text: "body wins over query", reply_markup: markup } },
      { json: { chat_id: chatId, text: "by native chat_id", reply_markup: markup } },
    ];
    for (const call of calls) {
      const res = await tg(client, bot.token, "sendMessage", call);
      expect(res.status).toBe(200);
      expect(res.body.result).toMatchObject({ chat: { id: number, type: "private", first_name: "Uma", last_name: "Test" }, reply_markup: markup });
    }
    const history = await client.get(`/api/messages?bot_id=${bot.id}&chat_id=${chatId}`);
    expect(history.body.result.filter((m: any) => m.sender === "bot").map((m: any) => m.text)).toEqual([
      "by query", "by json", "by json strings", "by form", "by multipart", "by gzip", "body wins over query", "by native chat_id",
    ]);
    const badMarkup = await tg(client, bot.token, "sendMessage", { form: { chat_id: String(number), text: "x", reply_markup: "{nope" } });
    expect(badMarkup.body.description).toStartWith("Bad Request: can't parse reply keyboard markup JSON object");
  });
});

describe("getUpdates", () => {
  test("Telegram shapes: integer ids, names, bot_command entities; timeout defaults to 0", async () => {
    const bot = await createTestBot(client, alice);
    const empty = Date.now();
    expect(await tg(client, bot.token, "getUpdates")).toEqual({ status: 200, body: { ok: true, result: [] } });
    expect(Date.now() - empty).toBeLessThan(1000);

    const chatId = chat();
    await incoming(bot, chatId, "/start@" + bot.username + " go", "Ada");
    const res = await tg(client, bot.token, "getUpdates");
    const conversation = (await client.get(`/api/inbox?bot_id=${bot.id}`, alice.token)).body.result[0];
    expect(res.body.result).toHaveLength(1);
    const { update_id, message } = res.body.result[0];
    expect(update_id).toBeInteger();
    expect(Math.abs(message.date - Date.now() / 1000)).toBeLessThan(60);
    expect(message).toMatchObject({
      message_id: expect.any(Number),
      date: expect.any(Number),
      chat: { id: conversation.number, type: "private", first_name: "Ada", last_name: "Test" },
      from: { id: conversation.contact.number, is_bot: false, first_name: "Ada", last_name: "Test" },
      text: `/start@${bot.username} go`,
      entities: [{ type: "bot_command", offset: 0, length: `/start@${bot.username}`.length }],
    });
  });

  test("offset confirms, a negative offset keeps the last ones, limit caps the batch", async () => {
    const bot = await createTestBot(client, alice);
    const chatId = chat();
    for (const text of ["a", "b", "c", "d"]) await incoming(bot, chatId, text);
    const all = (await tg(client, bot.token, "getUpdates", { json: { limit: 100 } })).body.result;
    const ids = all.map((u: any) => u.update_id);
    expect(all.map((u: any) => u.message.text)).toEqual(["a", "b", "c", "d"]);
    expect((await tg(client, bot.token, "getUpdates", { json: { limit: 2 } })).body.result.map((u: any) => u.update_id)).toEqual(ids.slice(0, 2));
    expect((await tg(client, bot.token, "getUpdates", { form: { offset: String(ids[2]) } })).body.result.map((u: any) => u.message.text)).toEqual(["c", "d"]);
    expect((await tg(client, bot.token, "getUpdates", { query: { offset: "-1" } })).body.result.map((u: any) => u.message.text)).toEqual(["d"]);
    // The native view agrees: what the facade confirmed is gone there too.
    const native = await client.get(`/api/bots/${bot.id}/get-updates?timeout=0`, bot.token);
    expect(native.body.result.map((u: any) => u.update_id)).toEqual([ids[3]]);
  });

  test("a long poll wakes on a new message; a newer poll ends the older with Telegram's 409", async () => {
    const bot = await createTestBot(client, alice);
    const waiting = tg(client, bot.token, "getUpdates", { json: { timeout: 20 } });
    await Bun.sleep(200);
    await incoming(bot, chat(), "wake up");
    const woke = await waiting;
    expect(woke.body.result.map((u: any) => u.message.text)).toEqual(["wake up"]);

    const offset = woke.body.result[0].update_id + 1;
    const older = tg(client, bot.token, "getUpdates", { json: { timeout: 20, offset } });
    await Bun.sleep(200);
    const newer = tg(client, bot.token, "getUpdates", { json: { timeout: 0, offset } });
    expect(await older).toEqual({
      status: 409,
      body: { ok: false, error_code: 409, description: "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running" },
    });
    expect((await newer).status).toBe(200);
  });

  test("allowed_updates leaves out (and confirms) kinds the client did not ask for", async () => {
    const bot = await createTestBot(client, alice);
    const chatId = chat();
    const accepted = await incoming(bot, chatId, "only a message");
    await client.post(`/api/inbox/${accepted.conversation_id}`, { text: "operator here" }, alice.token);
    const operatorOnly = await tg(client, bot.token, "getUpdates", { json: { allowed_updates: ["operator_message"] } });
    expect(operatorOnly.body.result.map((u: any) => Object.keys(u).sort())).toEqual([["operator_message", "update_id"]]);
    const none = await tg(client, bot.token, "getUpdates", { form: { allowed_updates: JSON.stringify(["callback_query"]) } });
    expect(none.body.result).toEqual([]);
    expect((await tg(client, bot.token, "getUpdates")).body.result).toEqual([]);
  });

  test("operator replies arrive as operator_message from the bot's side, signed by the operator", async () => {
    const bot = await createTestBot(client, alice, "Signed Bot");
    const chatId = chat();
    const accepted = await incoming(bot, chatId, "hi");
    await client.post(`/api/inbox/${accepted.conversation_id}`, { text: "a human here" }, alice.token);
    const [, update] = (await tg(client, bot.token, "getUpdates")).body.result;
    expect(update.operator_message).toMatchObject({
      from: { id: bot.number, is_bot: true, first_name: "Signed Bot", username: bot.username },
      chat: { type: "private", first_name: "Uma" },
      author_signature: "Operator",
      text: "a human here",
    });
  });
});

describe("other methods", () => {
  test("commands: the default scope is stored; other scopes and languages are refused on set and empty on get", async () => {
    const bot = await createTestBot(client, alice);
    const commands = [{ command: "start", description: "Begin" }, { command: "help", description: "Ask" }];
    expect((await tg(client, bot.token, "setMyCommands", { form: { commands: JSON.stringify(commands), scope: JSON.stringify({ type: "default" }) } })).body.result).toBe(true);
    expect((await tg(client, bot.token, "getMyCommands")).body.result).toEqual(commands);
    expect((await client.get(`/api/bots/${bot.id}/get-my-commands`, bot.token)).body.result).toEqual(commands);
    const scoped = await tg(client, bot.token, "setMyCommands", { json: { commands, scope: { type: "all_private_chats" } } });
    expect(scoped).toEqual({ status: 400, body: { ok: false, error_code: 400, description: "Bad Request: only the default command scope without language_code is supported" } });
    expect((await tg(client, bot.token, "setMyCommands", { json: { commands, language_code: "de" } })).status).toBe(400);
    expect((await tg(client, bot.token, "getMyCommands", { json: { language_code: "de" } })).body.result).toEqual([]);
    expect((await tg(client, bot.token, "setMyCommands", { json: { commands: [{ command: "Bad Command", description: "x" }] } })).status).toBe(400);
    expect((await tg(client, bot.token, "deleteMyCommands")).body.result).toBe(true);
    expect((await tg(client, bot.token, "getMyCommands")).body.result).toEqual([]);
  });

  test("webhook info, deleteWebhook (with drop_pending_updates), setWebhook with an empty url", async () => {
    const bot = await createTestBot(client, alice);
    await incoming(bot, chat(), "pending");
    expect((await tg(client, bot.token, "getWebhookInfo")).body.result).toEqual({ url: "", has_custom_certificate: false, pending_update_count: 1, max_connections: 40 });
    expect((await tg(client, bot.token, "setWebhook", { json: { url: "" } })).body).toEqual({ ok: true, result: true, description: "Webhook is already deleted" });
    expect((await tg(client, bot.token, "deleteWebhook", { json: { drop_pending_updates: true } })).body.result).toBe(true);
    expect((await tg(client, bot.token, "getWebhookInfo")).body.result.pending_update_count).toBe(0);
    expect((await tg(client, bot.token, "getUpdates")).body.result).toEqual([]);
  });

  test("a webhook set natively: getUpdates is Telegram's 409 until deleteWebhook through the facade", async () => {
    const bot = await createTestBot(client, alice);
    const url = "http://127.0.0.1:9/hook";
    expect((await client.post(`/api/bots/${bot.id}/set-webhook`, { url }, bot.token)).status).toBe(200);
    expect((await tg(client, bot.token, "getWebhookInfo")).body.result).toMatchObject({ url, pending_update_count: 0 });
    expect(await tg(client, bot.token, "getUpdates")).toEqual({
      status: 409,
      body: { ok: false, error_code: 409, description: "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first" },
    });
    expect((await tg(client, bot.token, "deleteWebhook")).body).toEqual({ ok: true, result: true, description: "Webhook was deleted" });
    expect((await client.get(`/api/bots/${bot.id}/get-webhook-info`, bot.token)).body.result.url).toBe("");
    expect(await tg(client, bot.token, "getUpdates")).toEqual({ status: 200, body: { ok: true, result: [] } });
  });

  test("sendChatAction: typing is announced on the bus; unknown actions and chats are 400; logOut and close are true", async () => {
    const bot = await createTestBot(client, alice);
    const chatId = chat();
    await incoming(bot, chatId, "hi");
    const number = await chatNumber(bot, chatId);
    const events: any[] = [];
    const unsubscribe = client.platform.bus.subscribe(`events.${alice.id}.typing`, (data) => events.push(data));
    expect((await tg(client, bot.token, "sendChatAction", { json: { chat_id: number, action: "typing" } })).body.result).toBe(true);
    expect((await tg(client, bot.token, "sendChatAction", { json: { chat_id: number, action: "upload_photo" } })).body.result).toBe(true);
    expect((await tg(client, bot.token, "sendChatAction", { json: { chat_id: number, action: "dancing" } })).body.description).toBe("Bad Request: wrong parameter action in request");
    expect((await tg(client, bot.token, "sendChatAction", { json: { chat_id: number + 1000, action: "typing" } })).body.description).toBe("Bad Request: chat not found");
    await client.platform.bus.flush();
    await Bun.sleep(50);
    unsubscribe();
    expect(events).toEqual([{ kind: "typing", owner_id: alice.id, bot_id: bot.id, conversation_id: expect.any(String), chat_id: chatId, channel: "web" }]);
    expect((await tg(client, bot.token, "logOut")).body).toEqual({ ok: true, result: true });
    expect((await tg(client, bot.token, "close")).body).toEqual({ ok: true, result: true });
  });

  test("the send rate limit is Telegram's 429 with parameters.retry_after", async () => {
    const limited = await testClient({ rateLimits: true });
    const owner = await registerUser(limited);
    const bot = await createTestBot(limited, owner);
    const chatId = chat();
    await limited.post("/api/messages", { bot_id: bot.id, chat_id: chatId, text: "hi", channel: "web" });
    const sends = await Promise.all(
      Array.from({ length: 40 }, (_, i) => tg(limited, bot.token, "sendMessage", { json: { chat_id: chatId, text: `n${i}` } })),
    );
    const refused = sends.filter((r) => r.status === 429);
    expect(refused.length).toBeGreaterThan(0);
    const retryAfter = refused[0]!.body.parameters?.retry_after;
    expect(retryAfter).toBeInteger();
    expect(refused[0]!.body).toEqual({ ok: false, error_code: 429, description: `Too Many Requests: retry after ${retryAfter}`, parameters: { retry_after: retryAfter } });
  });
});
