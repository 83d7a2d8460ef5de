// Personal API tokens: shown once, hashed at rest, a Bearer within their scopes (403 outside
// them), 401 once expired or revoked (in every process at once), and never in a log line.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Writable } from "node:stream";
import { createLogger } from "../../src/logger.ts";
import { openPlatform, type Platform } from "../../src/platform.ts";
import { clientFor, createTestBot, registerUser, sharedDb, testConfig, type Client, type TestUser } from "../support/harness.ts";

const lines: string[] = [];
const sink = new Writable({
  write(chunk, _encoding, done) {
    lines.push(String(chunk));
    done();
  },
});
const config = testConfig({ logLevel: "debug" });
const tokens: string[] = [];
let platform: Platform;
let other: Platform;
let client: Client;
let otherClient: Client;
let alice: TestUser;

async function createToken(body: Record<string, unknown>, token = alice.token) {
  const res = await client.post("/api/me/tokens", body, token);
  if (res.status === 201) tokens.push(res.body.result.token);
  return res;
}

beforeAll(async () => {
  platform = await openPlatform(config, createLogger(config, sink), { db: await sharedDb(), migrate: false, relayIntervalMs: 0 });
  // A second process on the same database and bus: revocation must reach it too.
  other = await openPlatform(config, createLogger(config, sink), { db: await sharedDb(), migrate: false, relayIntervalMs: 0 });
  client = clientFor(platform);
  otherClient = clientFor(other);
  alice = await registerUser(client);
});
afterAll(async () => {
  await other.close();
  await platform.close();
});

describe("personal API tokens", () => {
  test("created once with its scopes, hashed at rest, listed with last use but never again in full", async () => {
    const created = await createToken({ name: "CRM sync", scopes: ["inbox:read"] });
    expect(created.status).toBe(201);
    const token: string = created.body.result.token;
    expect(token).toMatch(/^bi_pat_[A-Za-z0-9_-]{40,}$/);
    expect(created.body.result).toMatchObject({ name: "CRM sync", scopes: ["inbox:read"], expires_at: null, last_used_at: null });
    const stored = await platform.db.query<Record<string, unknown>>(`select * from api_tokens where id = $1`, [created.body.result.id]);
    expect(JSON.stringify(stored)).not.toContain(token);
    expect(JSON.stringify(stored)).not.toContain(token.slice(7));
    expect((await client.get("/api/inbox", token)).status).toBe(200);
    const listed = await client.get("/api/me/tokens", alice.token);
    expect(listed.status).toBe(200);
    const mine = listed.body.result.find((t: any) => t.id === created.body.result.id);
    expect(mine.last_used_at).not.toBeNull();
    expect(JSON.stringify(listed.body)).not.toContain(token);
  });

  test("a token outside its scopes gets 403; inside them it acts as the user", async () => {
    const bot = await createTestBot(client, alice);
    const reader: string = (await createToken({ name: "reader", scopes: ["inbox:read"] })).body.result.token;
    const writer: string = (await createToken({ name: "writer", scopes: ["inbox:write"] })).body.result.token;
    const admin: string = (await createToken({ name: "admin", scopes: ["bots:admin"] })).body.result.token;
    const chatId = `pat-${crypto.randomUUID()}`;
    const incoming = await client.post("/api/messages", { bot_id: bot.id, chat_id: chatId, text: "hi", channel: "web" });
    const conversationId = incoming.body.result.conversation_id;

    expect((await client.get(`/api/inbox/${conversationId}`, reader)).status).toBe(200);
    expect((await client.get("/api/bots", reader)).status).toBe(200);
    expect((await client.post(`/api/inbox/${conversationId}`, { text: "from a reader" }, reader)).status).toBe(403);
    expect((await client.post("/api/bots", { name: "nope" }, reader)).status).toBe(403);

    expect((await client.post(`/api/inbox/${conversationId}`, { text: "from a script" }, writer)).status).toBe(200);
    expect((await client.get(`/api/inbox/${conversationId}`, writer)).status).toBe(403);
    expect((await client.post("/api/bots", { name: "nope" }, writer)).status).toBe(403);

    expect((await client.post("/api/bots", { name: "Made by a token" }, admin)).status).toBe(201);
    expect((await client.get("/api/inbox", admin)).status).toBe(403);

    // Tokens cannot make tokens, see sessions or log out: those stay with a person's login.
    for (const token of [reader, writer, admin]) {
      const res = await client.post("/api/me/tokens", { name: "child", scopes: ["bots:admin"] }, token);
      expect(res.status).toBe(403);
      expect(res.body.ok).toBe(false);
      expect((await client.get("/api/me/tokens", token)).status).toBe(403);
    }
  });

  test("an expired token gets 401; an expiry in the past or unknown scopes are refused with 400", async () => {
    const soon = new Date(Date.now() + 1500).toISOString();
    const created = await createToken({ name: "short", scopes: ["inbox:read"], expires_at: soon });
    expect(created.status).toBe(201);
    expect(created.body.result.expires_at).toBe(soon);
    expect((await client.get("/api/inbox", created.body.result.token)).status).toBe(200);
    await Bun.sleep(1700);
    const expired = await client.get("/api/inbox", created.body.result.token);
    expect(expired.status).toBe(401);
    expect(expired.body.ok).toBe(false);
    expect((await createToken({ name: "past", scopes: ["inbox:read"], expires_at: new Date(Date.now() - 1000).toISOString() })).status).toBe(400);
    expect((await createToken({ name: "odd", scopes: ["everything"] })).status).toBe(400);
    expect((await createToken({ name: "none", scopes: [] })).status).toBe(400);
    expect((await createToken({ name: "bad time", scopes: ["inbox:read"], expires_at: "tomorrow" })).status).toBe(400);
    expect((await client.get("/api/inbox", "bi_pat_not-a-real-token")).status).toBe(401);
  });

  test("a revoked token gets 401 at once, in every process", async () => {
    const created = await createToken({ name: "to revoke", scopes: ["inbox:read"] });
    const token: string = created.body.result.token;
    expect((await client.get("/api/inbox", token)).status).toBe(200);
    expect((await otherClient.get("/api/inbox", token)).status).toBe(200);
    const revoked = await client.request("DELETE", `/api/me/tokens/${created.body.result.id}`, { token: alice.token });
    expect(revoked.status).toBe(200);
    expect((await client.get("/api/inbox", token)).status).toBe(401);
    expect((await otherClient.get("/api/inbox", token)).status).toBe(401);
    const listed = await client.get("/api/me/tokens", alice.token);
    expect(listed.body.result.some((t: any) => t.id === created.body.result.id)).toBe(false);
    const again = await client.request("DELETE", `/api/me/tokens/${created.body.result.id}`, { token: alice.token });
    expect(again.status).toBe(404);
    const bob = await registerUser(client);
    const mineOnly = await createToken({ name: "alice's", scopes: ["inbox:read"] });
    expect((await client.request("DELETE", `/api/me/tokens/${mineOnly.body.result.id}`, { token: bob.token })).status).toBe(404);
  });

  test("no token ever appears in the log", async () => {
    expect(tokens.length).toBeGreaterThan(5);
    await Bun.sleep(100);
    const log = lines.join("");
    expect(log).toContain("\"msg\":\"request\"");
    for (const token of tokens) {
      expect(log).not.toContain(token);
      expect(log).not.toContain(token.slice(7));
    }
  });
});
