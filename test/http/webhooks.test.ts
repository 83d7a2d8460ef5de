// set-webhook, get-webhook-info, delete-webhook and the delivery log endpoints (no worker).
import { beforeAll, describe, expect, test } from "bun:test";
import { createTestBot, registerUser, testClient, type Client, type TestUser } from "../support/harness.ts";
import { incoming } from "../delivery/support.ts";

let client: Client;
let alice: TestUser;
beforeAll(async () => {
  client = await testClient();
  alice = await registerUser(client);
});

const HOOK = "http://127.0.0.1:9/hook";
const chat = () => `chat-${crypto.randomUUID()}`;

describe("set-webhook", () => {
  test("sets the webhook; get-webhook-info reports it", async () => {
    const bot = await createTestBot(client, alice);
    const before = await client.get(`/api/bots/${bot.id}/get-webhook-info`, bot.token);
    expect(before.body.result).toEqual({ url: "", has_custom_certificate: false, pending_update_count: 0, max_connections: 40 });
    const set = await client.post(`/api/bots/${bot.id}/set-webhook`, {
      url: HOOK, secret_token: "s3cret_-X", max_connections: 7, allowed_updates: ["message", "operator_message"],
    }, bot.token);
    expect(set.status).toBe(200);
    expect(set.body).toEqual({ ok: true, result: true });
    const info = await client.get(`/api/bots/${bot.id}/get-webhook-info`, bot.token);
    expect(info.body.result).toEqual({
      url: HOOK, has_custom_certificate: false, pending_update_count: 0, max_connections: 7, allowed_updates: ["message", "operator_message"],
    });
    // The card shows it too.
    expect((await client.get(`/api/bots/${bot.id}`, alice.token)).body.result.webhook_url).toBe(HOOK);
    // allowed_updates omitted keeps the previous list (Telegram); max_connections falls back to 40.
    await client.post(`/api/bots/${bot.id}/set-webhook`, { url: HOOK }, bot.token);
    const again = (await client.get(`/api/bots/${bot.id}/get-webhook-info`, bot.token)).body.result;
    expect(again).toMatchObject({ max_connections: 40, allowed_updates: ["message", "operator_message"] });
  });

  test.each([
    [{}, "url"],
    [{ url: "ftp://example.com/x" }, "url"],
    [{ url: "not a url" }, "url"],
    [{ url: HOOK, secret_token: "" }, "secret_token"],
    [{ url: HOOK, secret_token: "bad token!" }, "secret_token"],
    [{ url: HOOK, secret_token: "x".repeat(257) }, "secret_token"],
    [{ url: HOOK, max_connections: 0 }, "max_connections"],
    [{ url: HOOK, max_connections: 101 }, "max_connections"],
    [{ url: HOOK, allowed_updates: ["inline_query"] }, "allowed_updates"],
  ])("%j is 400 naming %s", async (body, field) => {
    const bot = await createTestBot(client, alice);
    const res = await client.post(`/api/bots/${bot.id}/set-webhook`, body, bot.token);
    expect(res.status).toBe(400);
    expect(res.body.ok).toBe(false);
    expect(res.body.error).toContain(field);
  });

  test("bot token auth: missing 401, user token 401, another bot's 403", async () => {
    const bot = await createTestBot(client, alice);
    const other = await createTestBot(client, alice);
    for (const [method, path] of [["POST", "set-webhook"], ["GET", "get-webhook-info"], ["POST", "delete-webhook"]] as const) {
      for (const token of [undefined, alice.token]) {
        const res = await client.request(method, `/api/bots/${bot.id}/${path}`, { token, body: method === "POST" ? { url: HOOK } : undefined });
        expect(res.status).toBe(401);
      }
      const foreign = await client.request(method, `/api/bots/${bot.id}/${path}`, { token: other.token, body: method === "POST" ? { url: HOOK } : undefined });
      expect(foreign.status).toBe(403);
    }
  });

  test("a parked long poll ends with 409 when the webhook is set; get-updates is 409 while it stays", async () => {
    const bot = await createTestBot(client, alice);
    const poll = client.get(`/api/bots/${bot.id}/get-updates?timeout=20`, bot.token);
    await Bun.sleep(200);
    const started = Date.now();
    await client.post(`/api/bots/${bot.id}/set-webhook`, { url: HOOK }, bot.token);
    const ended = await poll;
    expect(ended.status).toBe(409);
    expect(Date.now() - started).toBeLessThan(5000);
    expect((await client.get(`/api/bots/${bot.id}/get-updates?timeout=0`, bot.token)).status).toBe(409);
  });

  test("drop_pending_updates forgets what waits; pending_update_count counts the rest", async () => {
    const bot = await createTestBot(client, alice);
    await incoming(client, bot, chat(), "one");
    await incoming(client, bot, chat(), "two");
    await client.post(`/api/bots/${bot.id}/set-webhook`, { url: HOOK }, bot.token);
    expect((await client.get(`/api/bots/${bot.id}/get-webhook-info`, bot.token)).body.result.pending_update_count).toBe(2);
    await client.post(`/api/bots/${bot.id}/set-webhook`, { url: HOOK, drop_pending_updates: true }, bot.token);
    expect((await client.get(`/api/bots/${bot.id}/get-webhook-info`, bot.token)).body.result.pending_update_count).toBe(0);
  });
});

describe("delete-webhook", () => {
  test("returns true and the bot polls again, keeping its pending updates", async () => {
    const bot = await createTestBot(client, alice);
    await client.post(`/api/bots/${bot.id}/set-webhook`, { url: HOOK }, bot.token);
    await incoming(client, bot, chat(), "kept");
    const res = await client.post(`/api/bots/${bot.id}/delete-webhook`, undefined, bot.token);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true, result: true });
    expect((await client.get(`/api/bots/${bot.id}/get-webhook-info`, bot.token)).body.result.url).toBe("");
    expect((await client.get(`/api/bots/${bot.id}`, alice.token)).body.result.webhook_url).toBeNull();
    const polled = await client.get(`/api/bots/${bot.id}/get-updates?timeout=0`, bot.token);
    expect(polled.status).toBe(200);
    expect(polled.body.result.map((u: any) => u.message.text)).toEqual(["kept"]);
  });

  test("drop_pending_updates in the body or the query drops them", async () => {
    for (const how of ["body", "query"] as const) {
      const bot = await createTestBot(client, alice);
      await client.post(`/api/bots/${bot.id}/set-webhook`, { url: HOOK }, bot.token);
      await incoming(client, bot, chat(), "dropped");
      const res = how === "body"
        ? await client.post(`/api/bots/${bot.id}/delete-webhook`, { drop_pending_updates: true }, bot.token)
        : await client.post(`/api/bots/${bot.id}/delete-webhook?drop_pending_updates=true`, undefined, bot.token);
      expect(res.status).toBe(200);
      expect((await client.get(`/api/bots/${bot.id}/get-updates?timeout=0`, bot.token)).body.result).toEqual([]);
    }
  });
});

describe("webhook_url at bot creation", () => {
  test("behaves like set-webhook", async () => {
    const res = await client.post("/api/bots", { name: "Hooked", webhook_url: HOOK }, alice.token);
    expect(res.status).toBe(201);
    const bot = res.body.result;
    const info = await client.get(`/api/bots/${bot.id}/get-webhook-info`, bot.token);
    expect(info.body.result).toMatchObject({ url: HOOK, max_connections: 40 });
    expect((await client.get(`/api/bots/${bot.id}/get-updates?timeout=0`, bot.token)).status).toBe(409);
  });
});

describe("delivery log endpoints", () => {
  test("owner only: another user's bot is 404, no token 401; empty lists at first", async () => {
    const bot = await createTestBot(client, alice);
    const bob = await registerUser(client);
    for (const path of ["deliveries", "callback-deliveries"]) {
      expect((await client.get(`/api/bots/${bot.id}/${path}`)).status).toBe(401);
      expect((await client.get(`/api/bots/${bot.id}/${path}`, bob.token)).status).toBe(404);
      expect((await client.get(`/api/bots/${bot.id}/${path}`, bot.token)).status).toBe(401);
      const mine = await client.get(`/api/bots/${bot.id}/${path}?limit=1000`, alice.token);
      expect(mine.status).toBe(200);
      expect(mine.body.result).toEqual([]);
    }
  });
});
