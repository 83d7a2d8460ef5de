// Named caps on bots per user and open streams (429 past them), and
// the cabinet and Swagger pages refuse framing and foreign scripts.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { DEFAULT_RATE_LIMITS } from "../../src/config.ts";
import { MAX_BOTS_PER_USER } from "../../src/domain/bots.ts";
import { MAX_INBOX_STREAMS_PER_USER } from "../../src/domain/inbox_feed.ts";
import { MAX_WIDGET_STREAMS_PER_CLIENT } from "../../src/domain/chat_feed.ts";
import { createTestBot, registerUser, testClient, type Client } from "../support/harness.ts";

let client: Client;
beforeAll(async () => {
  client = await testClient({ rateLimits: true, limits: { ...DEFAULT_RATE_LIMITS, publicPerIp: 10_000 } });
});
afterAll(() => client.platform.close());

/** Opens an event stream through the app; the abort closes it. */
async function openStream(path: string, token?: string) {
  const abort = new AbortController();
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  const response = await client.app.handle(new Request(`http://test.local${path}`, { headers, signal: abort.signal }));
  return { response, close: () => abort.abort() };
}

test(`a bot past ${MAX_BOTS_PER_USER} per user is 429`, async () => {
  const user = await registerUser(client);
  for (let i = 0; i < MAX_BOTS_PER_USER; i++) await createTestBot(client, user, `Bot ${i}`);
  const refused = await client.post("/api/bots", { name: "One too many" }, user.token);
  expect(refused.status).toBe(429);
  expect(refused.body).toMatchObject({ ok: false, error_code: 429 });
  expect(refused.body.error).toContain(`${MAX_BOTS_PER_USER} bots`);
}, 120_000);

test("open inbox streams are capped per user; closing one frees its slot", async () => {
  const user = await registerUser(client);
  const other = await registerUser(client);
  const open = [];
  for (let i = 0; i < MAX_INBOX_STREAMS_PER_USER; i++) {
    const stream = await openStream("/api/inbox/stream", user.token);
    expect(stream.response.status).toBe(200);
    open.push(stream);
  }
  const refused = await openStream("/api/inbox/stream", user.token);
  expect(refused.response.status).toBe(429);
  expect(await refused.response.json()).toMatchObject({ ok: false, error_code: 429 });
  expect((await openStream("/api/inbox/stream", other.token)).response.status).toBe(200);
  open.pop()!.close();
  await Bun.sleep(20);
  const again = await openStream("/api/inbox/stream", user.token);
  expect(again.response.status).toBe(200);
  for (const stream of [...open, again]) stream.close();
});

test("open widget streams are capped per client address", async () => {
  const user = await registerUser(client);
  const bot = await createTestBot(client, user);
  const path = `/api/messages/stream?widget_key=${bot.widget_key}&chat_id=visitor`;
  const open = [];
  for (let i = 0; i < MAX_WIDGET_STREAMS_PER_CLIENT; i++) open.push(await openStream(path));
  expect(open.every((s) => s.response.status === 200)).toBe(true);
  expect((await openStream(path)).response.status).toBe(429);
  for (const stream of open) stream.close();
  await Bun.sleep(20);
  const again = await openStream(path);
  expect(again.response.status).toBe(200);
  again.close();
});

test("the cabinet and Swagger UI carry CSP and frame headers", async () => {
  for (const path of ["/", "/swagger"]) {
    const res = await client.get(path);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(res.headers.get("content-security-policy")).toContain("default-src 'self'");
    expect(res.headers.get("x-frame-options")).toBe("DENY");
  }
  expect((await client.get("/")).headers.get("content-security-policy")).toContain("script-src 'self';");
});
