import { describe, expect, test } from "bun:test";
import { DEFAULT_RATE_LIMITS } from "../../src/config.ts";
import { RateLimiter } from "../../src/ratelimit.ts";
import { createTestBot, registerUser, testClient, uniqueEmail } from "../support/harness.ts";

describe("RateLimiter", () => {
  test("allows `limit` per window, then 429 with the seconds left, then a fresh window", () => {
    let now = 1_000_000;
    const limiter = new RateLimiter(true, () => now);
    limiter.take("k", 2, 60_000);
    limiter.take("k", 2, 60_000);
    let error: any;
    try {
      limiter.take("k", 2, 60_000);
    } catch (err) {
      error = err;
    }
    expect(error?.code).toBe("rate_limited");
    expect(error?.retryAfter).toBe(60);
    limiter.take("other", 2, 60_000);
    now += 60_000;
    limiter.take("k", 2, 60_000);
  });

  test("disabled limiter never refuses", () => {
    const limiter = new RateLimiter(false);
    for (let i = 0; i < 100; i++) limiter.take("k", 1, 60_000);
  });
});

describe("limits on public endpoints and login", () => {
  test("POST /api/messages is limited per IP and per bot with 429 + Retry-After; nothing is stored", async () => {
    const client = await testClient({ rateLimits: true, limits: { ...DEFAULT_RATE_LIMITS, publicPerIp: 1000, publicPerBot: 3 } });
    const user = await registerUser(client);
    const bot = await createTestBot(client, user);
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await client.post("/api/messages", { bot_id: bot.id, chat_id: "c", text: `m${i}` })).status);
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    const refused = await client.post("/api/messages", { bot_id: bot.id, chat_id: "c", text: "x" });
    expect(refused.body).toMatchObject({ ok: false, error_code: 429 });
    expect(refused.body.retry_after).toBeGreaterThan(0);
    expect(refused.headers.get("retry-after")).toBe(String(refused.body.retry_after));
    const inbox = await client.get(`/api/inbox?bot_id=${bot.id}`, user.token);
    expect(inbox.body.result[0].message_count).toBe(3);
    await client.platform.close();
  });

  test("widget config and form plugin share the per-IP limit", async () => {
    const client = await testClient({ rateLimits: true, limits: { ...DEFAULT_RATE_LIMITS, publicPerIp: 2 } });
    const user = await registerUser(client);
    const bot = await createTestBot(client, user);
    expect((await client.get(`/api/widget/config?widget_key=${bot.widget_key}`)).status).toBe(200);
    expect((await client.post("/api/integrations/sitecms/forms-plugin", { integration_key: bot.integration_key })).status).toBe(200);
    expect((await client.get(`/api/widget/config?widget_key=${bot.widget_key}`)).status).toBe(429);
    await client.platform.close();
  });

  test("login attempts are limited per e-mail", async () => {
    const client = await testClient({ rateLimits: true, limits: { ...DEFAULT_RATE_LIMITS, loginPerEmail: 3 } });
    const email = uniqueEmail();
    await registerUser(client, email);
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await client.post("/api/auth/login", { email, password: "wrong-one" })).status);
    expect(statuses).toEqual([401, 401, 401, 429]);
    expect((await client.post("/api/auth/login", { email, password: "secret123" })).status).toBe(429);
    await client.platform.close();
  });
});
