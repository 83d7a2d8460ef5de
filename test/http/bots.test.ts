import { beforeAll, describe, expect, test } from "bun:test";
import { createTestBot, registerUser, testClient, type Client, type TestUser } from "../support/harness.ts";

let client: Client;
let alice: TestUser;
let bob: TestUser;
beforeAll(async () => {
  client = await testClient();
  alice = await registerUser(client);
  bob = await registerUser(client);
});

describe("bots", () => {
  test("create returns 201 with the full card", async () => {
    const res = await client.post("/api/bots", { name: "Support Desk", description: "helps" }, alice.token);
    expect(res.status).toBe(201);
    const bot = res.body.result;
    expect(bot.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(bot.number).toBeGreaterThan(0);
    expect(bot.token).toMatch(new RegExp(`^${bot.number}:[A-Za-z0-9_-]{32,}$`));
    expect(bot.username).toMatch(/bot$/);
    expect(bot.widget_key).toBeString();
    expect(bot.integration_key).toBeString();
    expect(bot.description).toBe("helps");
    expect(bot.webhook_url).toBeNull();
  });

  test("usernames stay unique when names repeat", async () => {
    const a = await createTestBot(client, alice, "Twin");
    const b = await createTestBot(client, bob, "Twin");
    expect(a.username).not.toBe(b.username);
    expect(a.username).toEndWith("bot");
    expect(b.username).toEndWith("bot");
  });

  test("list shows only the caller's bots", async () => {
    const mine = await createTestBot(client, alice, "Mine");
    const theirs = await createTestBot(client, bob, "Theirs");
    const list = await client.get("/api/bots", alice.token);
    expect(list.status).toBe(200);
    const ids = list.body.result.map((b: { id: string }) => b.id);
    expect(ids).toContain(mine.id);
    expect(ids).not.toContain(theirs.id);
  });

  test("GET /api/bots without a token is 401 with the error body", async () => {
    const res = await client.get("/api/bots");
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ ok: false, error_code: 401 });
    expect(res.body.error).toBeString();
  });

  test.each([
    [{}, "name"],
    [{ name: "" }, "name"],
    [{ name: "x".repeat(65) }, "name"],
    [{ name: "ok", webhook_url: "ftp://example.com/hook" }, "webhook_url"],
    [{ name: "ok", webhook_url: "not a url" }, "webhook_url"],
  ])("create with %j is 400 naming %s", async (body, field) => {
    const res = await client.post("/api/bots", body, alice.token);
    expect(res.status).toBe(400);
    expect(res.body.error).toContain(field);
  });

  test("webhook_url given at creation is kept", async () => {
    const res = await client.post("/api/bots", { name: "Hooked", webhook_url: "https://example.com/hook" }, alice.token);
    expect(res.status).toBe(201);
    expect(res.body.result.webhook_url).toBe("https://example.com/hook");
  });

  test("the card is the owner's only: another user gets 404, a malformed id 400", async () => {
    const bot = await createTestBot(client, alice);
    expect((await client.get(`/api/bots/${bot.id}`, alice.token)).body.result.token).toBe(bot.token);
    const foreign = await client.get(`/api/bots/${bot.id}`, bob.token);
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ ok: false, error: "bot not found", error_code: 404 });
    const unknown = await client.get(`/api/bots/00000000-0000-4000-8000-000000000000`, alice.token);
    expect(unknown.body).toEqual(foreign.body);
    const malformed = await client.get(`/api/bots/not-a-uuid`, alice.token);
    expect(malformed.status).toBe(400);
    expect(malformed.body.error).toContain("id");
  });

  test("token rotation issues a new token and keeps number and keys", async () => {
    const bot = await createTestBot(client, alice);
    const res = await client.post(`/api/bots/${bot.id}/token`, undefined, alice.token);
    expect(res.status).toBe(200);
    const rotated = res.body.result;
    expect(rotated.token).not.toBe(bot.token);
    expect(rotated.token.startsWith(`${bot.number}:`)).toBe(true);
    expect(rotated.widget_key).toBe(bot.widget_key);
    expect((await client.get(`/api/bots/${bot.id}`, alice.token)).body.result.token).toBe(rotated.token);
    expect((await client.post(`/api/bots/${bot.id}/token`, undefined, bob.token)).status).toBe(404);
  });
});
