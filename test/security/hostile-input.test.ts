// Bad input always gets a clear 4xx envelope; never a 500, a stall or a crash.
// Deep bodies against the real server (the event loop must stay free), text PostgreSQL
// cannot store and integers beyond 64 bits over the endpoints that used to answer 500.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { asBadInput } from "../../src/core/errors.ts";
import { findUnstorableText, jsonTooDeep, MAX_JSON_DEPTH } from "../../src/http/input.ts";
import { createLogger } from "../../src/logger.ts";
import { startServer, type RunningServer } from "../../src/server.ts";
import { sharedDb, testConfig, type Client, type TestBot, type TestUser } from "../support/harness.ts";
import { targetWithTraffic } from "./support.ts";

const nested = (depth: number, leaf = "1") => `${'{"a":'.repeat(depth)}${leaf}${"}".repeat(depth)}`;
const deepArray = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;

describe("nesting depth", () => {
  test("the scan counts brackets outside strings only", () => {
    expect(jsonTooDeep(nested(MAX_JSON_DEPTH))).toBe(false);
    expect(jsonTooDeep(nested(MAX_JSON_DEPTH + 1))).toBe(true);
    expect(jsonTooDeep(JSON.stringify({ text: "[".repeat(1000) + '\\"{{{{' }))).toBe(false);
  });

  describe("against the running server", () => {
    let server: RunningServer;
    beforeAll(async () => {
      const config = testConfig();
      server = await startServer(config, createLogger(config), { db: await sharedDb(), migrate: false });
    });
    afterAll(() => server.stop());

    const timed = async (path: string, body?: string) => {
      const started = performance.now();
      const res = await fetch(`${server.url}${path}`, body === undefined ? {} : { method: "POST", headers: { "content-type": "application/json" }, body });
      const json = (await res.json()) as any;
      return { status: res.status, body: json, ms: performance.now() - started };
    };

    test("a 10,000-deep body to POST /api/messages and a 30,000-deep array to register answer 400 at once; /healthz stays quick", async () => {
      await timed("/healthz"); // warm the connection and the route
      const attacks = [
        ["/api/messages", `{"text":${nested(10_000)}}`],
        ["/api/auth/register", deepArray(30_000)],
        ["/api/auth/login", `{"email":${nested(10_000, '"x"')},"password":"secret123"}`],
      ] as const;
      for (const [path, body] of attacks) {
        const [attack, health] = await Promise.all([timed(path, body), Bun.sleep(5).then(() => timed("/healthz"))]);
        expect(attack.status).toBe(400);
        expect(attack.body).toMatchObject({ ok: false, error_code: 400 });
        expect(attack.body.error).toContain(`deeper than ${MAX_JSON_DEPTH}`);
        expect(attack.ms).toBeLessThan(100);
        expect(health.status).toBe(200);
        expect(health.ms).toBeLessThan(50);
      }
    });

    test("a chunked body over 64 KiB is 413 with an envelope; so is a declared one over Bun's old 1 MiB ceiling", async () => {
      const chunks = new ReadableStream({
        start(controller) {
          for (let i = 0; i < 80; i++) controller.enqueue(new TextEncoder().encode(" ".repeat(1024)));
          controller.close();
        },
      });
      const chunked = await fetch(`${server.url}/api/auth/register`, { method: "POST", headers: { "content-type": "application/json" }, body: chunks });
      expect(chunked.status).toBe(413);
      expect(await chunked.json()).toMatchObject({ ok: false, error_code: 413 });
      const big = await fetch(`${server.url}/api/auth/register`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: " ".repeat(2 * 1024 * 1024),
      });
      expect(big.status).toBe(413);
      expect(await big.json()).toMatchObject({ ok: false, error_code: 413 });
    });
  });
});

describe("text PostgreSQL cannot store and integers beyond 64 bits", () => {
  let client: Client;
  let user: TestUser;
  let bot: TestBot;
  let conversationId: string;
  let messageId: number;

  beforeAll(async () => {
    ({ client, user, bot, conversationId, messageId } = await targetWithTraffic());
  });
  afterAll(() => client.platform.close());

  test("findUnstorableText names the first bad field, keys included", () => {
    expect(findUnstorableText({ a: ["ok", "x\u0000"] })).toBe("a.1");
    expect(findUnstorableText({ user: { first_name: "\ud800" } })).toBe("user.first_name");
    expect(findUnstorableText({ "k\udc00": 1 })).toBe("(key)");
    expect(findUnstorableText({ emoji: "😀", text: "fine" })).toBeUndefined();
  });

  const NUL = "a\u0000b";
  const LONE = "a\ud800b";

  test.each([NUL, LONE])("native endpoints answer 400 naming the field (%j)", async (bad) => {
    // A URL cannot carry a lone surrogate (its UTF-8 form is invalid); %ED%A0%80 is what a client would send.
    const q = bad === LONE ? "a%ED%A0%80b" : encodeURIComponent(bad);
    const cases: Array<[string, string, unknown, string | undefined, string]> = [
      ["POST", "/api/messages", { bot_id: bot.id, chat_id: "v", text: bad }, undefined, "text"],
      ["POST", "/api/messages", { bot_id: bot.id, chat_id: bad, text: "x" }, undefined, "chat_id"],
      ["POST", "/api/messages", { bot_id: bot.id, chat_id: "v", text: "x", user: { first_name: bad } }, undefined, "user.first_name"],
      ["POST", "/api/messages", { bot_id: bot.id, chat_id: "v", text: "x", metadata: { page: { title: bad } } }, undefined, "metadata.page.title"],
      ["POST", "/api/integrations/sitecms/forms-plugin", { integration_key: bot.integration_key, fields: { name: bad } }, undefined, "fields.name"],
      ["POST", "/api/bots", { name: bad }, user.token, "name"],
      ["PATCH", `/api/bots/${bot.id}/channels`, { channel_type: "widget", config: { title: bad } }, user.token, "config.title"],
      ["POST", `/api/inbox/${conversationId}`, { text: bad }, user.token, "text"],
      ["PATCH", `/api/inbox/${conversationId}`, { operator_note: bad }, user.token, "operator_note"],
      ["POST", `/api/bots/${bot.id}/send-message`, { chat_id: "visitor", text: bad }, bot.token, "text"],
      ["POST", `/api/bots/${bot.id}/edit-message-text`, { message_id: messageId, text: bad }, bot.token, "text"],
      ["POST", `/api/bots/${bot.id}/set-my-commands`, { commands: [{ command: "start", description: bad }] }, bot.token, "commands.0.description"],
      ["GET", `/api/messages?bot_id=${bot.id}&chat_id=${q}`, undefined, undefined, "chat_id"],
      ["GET", `/api/widget/config?widget_key=${q}`, undefined, undefined, "widget_key"],
      ["GET", `/api/messages/stream?widget_key=${bot.widget_key}&chat_id=${q}`, undefined, undefined, "chat_id"],
      ["GET", `/api/inbox?q=${q}`, undefined, user.token, "q"],
    ];
    for (const [method, path, body, token, field] of cases) {
      // With valid text the stream would open and stay open.
      if (bad === LONE && path.includes("/stream")) continue;
      const res = await client.request(method, path, { body, token });
      const where = `${method} ${path}`;
      if (bad === LONE && body === undefined) {
        // The URL decoder turns the invalid UTF-8 into U+FFFD, which is storable text.
        expect({ where, status: res.status < 500 }).toEqual({ where, status: true });
        continue;
      }
      expect({ where, status: res.status }).toEqual({ where, status: 400 });
      expect(res.body).toMatchObject({ ok: false, error_code: 400 });
      expect(res.body.error).toContain(field);
    }
  });

  test.each([NUL, LONE])("the Telegram facade answers Telegram's 400 (%j)", async (bad) => {
    const base = `/bot${bot.token}`;
    const calls: Array<[string, Record<string, unknown>]> = [
      ["sendMessage", { chat_id: "visitor", text: bad }],
      ["editMessageText", { chat_id: "visitor", message_id: messageId, text: bad }],
      ["sendChatAction", { chat_id: bad, action: "typing" }],
      ["sendMessage", { chat_id: "visitor", text: "x", reply_markup: JSON.stringify({ inline_keyboard: [[{ text: bad, callback_data: "a" }]] }) }],
    ];
    for (const [method, params] of calls) {
      const json = await client.request("POST", `${base}/${method}`, { body: params });
      expect(json.status).toBe(400);
      expect(json.body).toMatchObject({ ok: false, error_code: 400 });
      expect(json.body.description).toStartWith("Bad Request:");
      // A form body cannot carry a lone surrogate: encoding turns it into U+FFFD.
      if (bad === LONE) continue;
      const form = await client.request("POST", `${base}/${method}`, {
        raw: new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)])).toString(),
        headers: { "content-type": "application/x-www-form-urlencoded" },
      });
      expect(form.status).toBe(400);
      expect(form.body.description).toStartWith("Bad Request:");
    }
  });

  test("ids, cursors and offsets beyond 64 bits are 400, never 500", async () => {
    for (const huge of [1e308, 2 ** 63, -(2 ** 63)]) {
      for (const path of ["edit-message-text", "delete-message"]) {
        const res = await client.request("POST", `/api/bots/${bot.id}/${path}`, { body: { message_id: huge, text: "x" }, token: bot.token });
        expect({ path, huge, status: res.status }).toEqual({ path, huge, status: 400 });
        expect(res.body.ok).toBe(false);
      }
    }
    const raw = `{"message_id":${"9".repeat(30)},"text":"x"}`;
    expect((await client.request("POST", `/api/bots/${bot.id}/delete-message`, { raw, token: bot.token })).status).toBe(400);
    for (const huge of ["1e308", "9223372036854775808", "-9223372036854775809", String(2 ** 63)]) {
      const checks: Array<[string, string | undefined]> = [
        [`/api/messages?bot_id=${bot.id}&chat_id=visitor&before=${huge}`, undefined],
        [`/api/inbox/${conversationId}?before=${huge}`, user.token],
        [`/api/inbox?before=${huge}`, user.token],
        [`/api/bots/${bot.id}/get-updates?timeout=0&offset=${huge}`, bot.token],
        [`/api/messages/stream?widget_key=${bot.widget_key}&chat_id=visitor&since=${huge}`, undefined],
      ];
      for (const [path, token] of checks) {
        const res = await client.request("GET", path, { token });
        expect({ path, status: res.status }).toEqual({ path, status: 400 });
        expect(res.body).toMatchObject({ ok: false, error_code: 400 });
      }
    }
    const timestamp = await client.post("/api/messages", { bot_id: bot.id, chat_id: "v", text: "x", timestamp: 1e300 });
    expect(timestamp.status).toBe(400);
    const tg = await client.request("POST", `/bot${bot.token}/getUpdates`, { body: { offset: 2 ** 63, timeout: 0 } });
    expect(tg.status).toBe(400);
    expect(tg.body.description).toStartWith("Bad Request:");
  });

  test("a database refusing a value is 400 (409 for a duplicate), not 500", () => {
    expect(asBadInput(Object.assign(new Error("invalid byte sequence"), { code: "22021" }))).toMatchObject({ status: 400 });
    expect(asBadInput(Object.assign(new Error("bigint out of range"), { code: "22003" }))).toMatchObject({ status: 400 });
    expect(asBadInput(Object.assign(new Error("duplicate key"), { code: "23505" }))).toMatchObject({ status: 409 });
    const other = Object.assign(new Error("syntax"), { code: "42601" });
    expect(asBadInput(other)).toBe(other);
  });
});
