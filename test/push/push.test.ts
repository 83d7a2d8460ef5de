import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Server } from "bun";
import { startPushWorker, type PushWorker } from "../../src/workers/push.ts";
import { subscribedMembersLookup } from "../../src/delivery/push.ts";
import type { Queryable } from "../../src/db/driver.ts";
import { createTestBot, registerUser, testClient, type Client, type TestBot, type TestUser } from "../support/harness.ts";
import { eventually } from "../support/eventually.ts";
import { browserKeys, decryptPush, type BrowserKeys } from "./webpush.ts";

interface Received {
  path: string;
  headers: Headers;
  body: Uint8Array<ArrayBuffer>;
}

let client: Client;
let user: TestUser;
let bot: TestBot;
let worker: PushWorker;
let pushService: Server<unknown>;
const received: Received[] = [];
let answer = 201;

beforeAll(async () => {
  client = await testClient();
  user = await registerUser(client);
  bot = await createTestBot(client, user, "Push bot");
  pushService = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      received.push({ path: new URL(req.url).pathname, headers: req.headers, body: new Uint8Array(await req.arrayBuffer()) });
      return new Response(null, { status: answer });
    },
  });
  worker = await startPushWorker(client.services, { consumerName: `push-test-${crypto.randomUUID()}` });
});

afterAll(async () => {
  await worker.stop();
  pushService.stop(true);
  await client.platform.close();
});

const waitFor = <T>(check: () => T | undefined, ms = 10_000) => eventually("the push", check, ms);

async function subscribe(path: string, who: TestUser = user): Promise<BrowserKeys> {
  const keys = await browserKeys();
  const res = await client.post("/api/push/subscriptions", {
    endpoint: `http://127.0.0.1:${pushService.port}${path}`, keys: { p256dh: keys.p256dh, auth: keys.auth },
  }, who.token);
  expect(res.status).toBe(201);
  return keys;
}

describe("operator push notifications", () => {
  test("the VAPID public key is stable and needs a user token", async () => {
    const a = await client.get("/api/push/public-key", user.token);
    const b = await client.get("/api/push/public-key", user.token);
    expect(a.body.result.public_key).toMatch(/^[A-Za-z0-9_-]{80,}$/);
    expect(b.body.result.public_key).toBe(a.body.result.public_key);
    expect((await client.get("/api/push/public-key")).status).toBe(401);
  });

  test("an incoming message reaches the operator's browser, encrypted and VAPID-signed", async () => {
    const keys = await subscribe("/sub-1");
    received.length = 0;
    await client.post("/api/messages", { bot_id: bot.id, chat_id: "push-chat", text: "I need help", user: { id: "v1", first_name: "Vera" } });
    const got = await waitFor(() => received[0]);
    expect(got.headers.get("content-encoding")).toBe("aes128gcm");
    expect(Number(got.headers.get("ttl"))).toBeGreaterThan(0);
    const publicKey = (await client.get("/api/push/public-key", user.token)).body.result.public_key;
    expect(got.headers.get("authorization")).toContain(`k=${publicKey}`);
    const payload = JSON.parse(await decryptPush(got.body, keys));
    expect(payload).toMatchObject({ title: "Vera · custom_api", body: "I need help", bot_id: bot.id });
    expect(payload.url).toContain(payload.conversation_id);
    await client.request("DELETE", "/api/push/subscriptions", { body: { endpoint: `http://127.0.0.1:${pushService.port}/sub-1` }, token: user.token });
  });

  test("operator and bot replies do not notify; a subscription the service calls gone is removed", async () => {
    await subscribe("/sub-2");
    received.length = 0;
    const accepted = (await client.post("/api/messages", { bot_id: bot.id, chat_id: "push-2", text: "first" })).body.result;
    await waitFor(() => received[0]);
    await client.post(`/api/inbox/${accepted.conversation_id}`, { text: "operator reply" }, user.token);
    answer = 410;
    await client.post("/api/messages", { bot_id: bot.id, chat_id: "push-2", text: "second" });
    await waitFor(() => (received.length >= 2 ? true : undefined));
    const deadline = Date.now() + 5000;
    let list: any[] = [];
    while (Date.now() < deadline) {
      list = (await client.get("/api/push/subscriptions", user.token)).body.result;
      if (list.length === 0) break;
      await Bun.sleep(50);
    }
    expect(list).toEqual([]);
    expect(received).toHaveLength(2);
    answer = 201;
  });

  test("subscription validation and isolation", async () => {
    const keys = await browserKeys();
    const post = (body: unknown) => client.post("/api/push/subscriptions", body, user.token);
    expect((await post({ endpoint: "not a url", keys: { p256dh: keys.p256dh, auth: keys.auth } })).status).toBe(400);
    const shortKey = await post({ endpoint: "https://push.example/x", keys: { p256dh: "AAAA", auth: keys.auth } });
    expect(shortKey.status).toBe(400);
    expect(shortKey.body.error).toContain("p256dh");
    expect((await post({ endpoint: "https://push.example/x" })).body.error).toContain("keys");
    const other = await registerUser(client);
    const del = await client.request("DELETE", "/api/push/subscriptions", { body: { endpoint: "https://push.example/none" }, token: other.token });
    expect(del.status).toBe(404);
  });

  test("bots announced in one turn share one look-up of their subscribed members; a subscription made after it answers is seen", async () => {
    const [ownerA, ownerB] = [await registerUser(client), await registerUser(client)];
    const [botA, botB] = [await createTestBot(client, ownerA, "Push A"), await createTestBot(client, ownerB, "Push B")];
    await subscribe("/owner-a", ownerA);
    const db = client.platform.db;
    const statements: string[] = [];
    const counting: Queryable = { query: <T>(text: string, params?: unknown[]) => (statements.push(text), db.query<T>(text, params)), exec: db.exec.bind(db) };
    const lookup = subscribedMembersLookup(counting);
    expect(await Promise.all([lookup(botA.id), lookup(botB.id), lookup(botA.id)])).toEqual([[ownerA.id], [], [ownerA.id]]);
    expect(statements.length).toBe(1);
    await subscribe("/owner-b", ownerB);
    expect(await lookup(botB.id)).toEqual([ownerB.id]);
    expect(statements.length).toBe(2);
  });

  test("every member of the bot is notified on their own subscriptions; nobody else", async () => {
    const operator = await registerUser(client);
    const stranger = await registerUser(client);
    const invite = await client.post(`/api/bots/${bot.id}/invites`, { email: operator.email }, user.token);
    await client.post("/api/invites/accept", { code: invite.body.result.code }, operator.token);
    await subscribe("/owner-3");
    await subscribe("/operator-3", operator);
    await subscribe("/stranger-3", stranger);
    received.length = 0;
    await client.post("/api/messages", { bot_id: bot.id, chat_id: "push-3", text: "for the team" });
    const paths = () => received.map((r) => r.path);
    await waitFor(() => (paths().includes("/owner-3") && paths().includes("/operator-3") ? true : undefined));
    // A second message's pushes arriving means the first one's are all out.
    await client.post("/api/messages", { bot_id: bot.id, chat_id: "push-3", text: "again" });
    await waitFor(() => (paths().filter((p) => p === "/operator-3").length >= 2 ? true : undefined));
    expect(paths()).not.toContain("/stranger-3");
  });
});
