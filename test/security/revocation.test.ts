// Long-lived credentials are re-checked: a password change or a log-out ends the inbox streams
// opened with the old token at once (not at the next periodic re-check), a logged-out token
// is refused, a rotated bot token ends the get-updates poll parked with it, and a removed
// member's stream stops carrying the bot.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { MEMBERSHIP_RECHECK_MS } from "../../src/domain/inbox_feed.ts";
import { createTestBot, MODE, registerUser, testClient, type Client, type TestUser } from "../support/harness.ts";
import { openStream, type OpenStream } from "../web/sse.ts";

/** Far below the periodic re-check: only the bus notice can be this fast. */
const AT_ONCE_MS = 5_000;

let client: Client;
beforeAll(async () => {
  client = await testClient();
});
afterAll(async () => {
  await client.platform.close();
});

async function inboxStream(token: string): Promise<OpenStream> {
  const stream = await openStream(client.app, "/api/inbox/stream", { authorization: `Bearer ${token}` });
  expect(stream.status).toBe(200);
  await stream.next((f) => f.event === "ready");
  return stream;
}

/** Resolves with the elapsed ms once the stream ended, or rejects after `limit`. */
async function endsWithin(stream: OpenStream, limit: number): Promise<number> {
  const started = Date.now();
  await Promise.race([stream.ended, Bun.sleep(limit).then(() => Promise.reject(new Error(`stream still open after ${limit} ms`)))]);
  return Date.now() - started;
}

describe(`credentials are re-checked at once (${MODE})`, () => {
  test("the backstop re-check is bounded and slower than the bus: these tests measure the bus", () => {
    expect(MEMBERSHIP_RECHECK_MS).toBeGreaterThan(AT_ONCE_MS);
    expect(MEMBERSHIP_RECHECK_MS).toBeLessThanOrEqual(60_000);
  });

  test("changing the password ends open inbox streams of older tokens; the new token streams", async () => {
    const user = await registerUser(client);
    const bot = await createTestBot(client, user, "Password bot");
    const old = await inboxStream(user.token);
    const changed = await client.post("/api/auth/password", { current_password: "secret123", new_password: "a-new-password-1" }, user.token);
    expect(changed.status).toBe(200);
    expect(await endsWithin(old, AT_ONCE_MS)).toBeLessThan(AT_ONCE_MS);
    expect(old.frames.map((f) => f.event)).toContain("session_revoked");
    // Nothing that happens afterwards reaches the old stream.
    await client.post("/api/messages", { widget_key: bot.widget_key, chat_id: `c-${crypto.randomUUID()}`, text: "after the change" });
    await Bun.sleep(200);
    expect(JSON.stringify(old.frames)).not.toContain("after the change");
    const fresh = await inboxStream(changed.body.result.token);
    await fresh.close();
  });

  test("log-out revokes the token: requests get 401 and its streams end; another session stays", async () => {
    const user = await registerUser(client);
    const other = (await client.post("/api/auth/login", { email: user.email, password: "secret123" })).body.result.token;
    const stream = await inboxStream(user.token);
    const otherStream = await inboxStream(other);
    expect((await client.post("/api/auth/logout", undefined, user.token)).status).toBe(200);
    expect(await endsWithin(stream, AT_ONCE_MS)).toBeLessThan(AT_ONCE_MS);
    expect((await client.get("/api/auth/me", user.token)).status).toBe(401);
    expect((await client.get("/api/bots", user.token)).status).toBe(401);
    expect((await openStream(client.app, "/api/inbox/stream", { authorization: `Bearer ${user.token}` })).status).toBe(401);
    expect((await client.get("/api/auth/me", other)).status).toBe(200);
    await Bun.sleep(100);
    expect(otherStream.frames.map((f) => f.event)).not.toContain("session_revoked");
    await otherStream.close();
  });

  test("rotating the bot token ends the poll parked with the old one (401) before it can deliver", async () => {
    const user = await registerUser(client);
    const bot = await createTestBot(client, user, "Rotated bot");
    const started = Date.now();
    const parked = client.get(`/api/bots/${bot.id}/get-updates?timeout=30`, bot.token);
    await Bun.sleep(200);
    expect((await client.post(`/api/bots/${bot.id}/token`, {}, user.token)).status).toBe(200);
    await client.post("/api/messages", { bot_id: bot.id, chat_id: `c-${crypto.randomUUID()}`, text: "for the new token only" });
    const res = await parked;
    expect(res.status).toBe(401);
    expect(Date.now() - started).toBeLessThan(AT_ONCE_MS);
    expect(JSON.stringify(res.body)).not.toContain("for the new token only");
  });

  test.skipIf(MODE !== "production")("a rotation on one process ends the poll parked on another (the bus)", async () => {
    const other = await testClient();
    try {
      const user = await registerUser(client);
      const bot = await createTestBot(client, user, "Rotated elsewhere");
      const started = Date.now();
      const parked = other.get(`/api/bots/${bot.id}/get-updates?timeout=30`, bot.token);
      await Bun.sleep(300);
      expect((await client.post(`/api/bots/${bot.id}/token`, {}, user.token)).status).toBe(200);
      await client.post("/api/messages", { bot_id: bot.id, chat_id: `c-${crypto.randomUUID()}`, text: "for the new token only" });
      const res = await parked;
      expect(res.status).toBe(401);
      expect(Date.now() - started).toBeLessThan(AT_ONCE_MS);
    } finally {
      await other.platform.close();
    }
  });

  test.skipIf(MODE !== "production")("a password change on one process ends the stream open on another (the bus)", async () => {
    const other = await testClient();
    try {
      const user = await registerUser(client);
      const stream = await openStream(other.app, "/api/inbox/stream", { authorization: `Bearer ${user.token}` });
      await stream.next((f) => f.event === "ready");
      expect((await client.post("/api/auth/password", { current_password: "secret123", new_password: "a-new-password-2" }, user.token)).status).toBe(200);
      expect(await endsWithin(stream, AT_ONCE_MS)).toBeLessThan(AT_ONCE_MS);
    } finally {
      await other.platform.close();
    }
  });

  test("a removed member's stream stops carrying the bot at once", async () => {
    const owner = await registerUser(client);
    const operator: TestUser = await registerUser(client);
    const bot = await createTestBot(client, owner, "Team bot");
    const invite = await client.post(`/api/bots/${bot.id}/invites`, { email: operator.email }, owner.token);
    expect((await client.post("/api/invites/accept", { code: invite.body.result.code }, operator.token)).status).toBe(200);
    const stream = await inboxStream(operator.token);
    expect((await client.request("DELETE", `/api/bots/${bot.id}/members/${operator.id}`, { token: owner.token })).status).toBe(200);
    await stream.next((f) => f.event === "bots_changed", AT_ONCE_MS);
    await client.post("/api/messages", { widget_key: bot.widget_key, chat_id: `c-${crypto.randomUUID()}`, text: "not for the removed" });
    await Bun.sleep(300);
    expect(JSON.stringify(stream.frames)).not.toContain("not for the removed");
    await stream.close();
  });
});
