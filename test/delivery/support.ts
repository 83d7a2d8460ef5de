// Fixtures for the webhook tests: a real HTTP receiver on 127.0.0.1 that records what it is
// sent and how many requests were in flight at once, a worker scoped to the test's own bots,
// and small helpers to make traffic.
import { afterAll, afterEach, beforeAll } from "bun:test";
import { jetStreamLeases } from "../../src/leases/jetstream.ts";
import type { Leases } from "../../src/leases/leases.ts";
import { memoryLeases } from "../../src/leases/memory.ts";
import type { Platform } from "../../src/platform.ts";
import type { Services } from "../../src/services.ts";
import { startWebhookWorker, type WebhookWorker, type WorkerOptions } from "../../src/workers/webhook.ts";
import { registerUser, testClient, type Client, type TestBot, type TestUser } from "../support/harness.ts";

export interface Received {
  path: string;
  headers: Headers;
  body: any;
  raw: string;
  at: number;
}

export type Behaviour = (req: Received, nth: number) => Promise<Response> | Response;

export interface Receiver {
  url: string;
  received: Received[];
  /** Most requests in flight at once, per path (the tests give each bot its own path) and per "path chat". */
  maxInFlight: Map<string, number>;
  behave(fn: Behaviour): void;
  stop(): void;
}

export function startReceiver(initial: Behaviour = () => new Response("ok")): Receiver {
  let behaviour = initial;
  const received: Received[] = [];
  const inFlight = new Map<string, number>();
  const maxInFlight = new Map<string, number>();
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      const path = new URL(request.url).pathname;
      const raw = await request.text();
      let body: unknown = raw;
      try {
        body = JSON.parse(raw);
      } catch {}
      const entry = { path, headers: request.headers, body, raw, at: Date.now() };
      received.push(entry);
      const chat = chatOf(body);
      const keys = chat === undefined ? [path] : [path, `${path} ${chat}`];
      for (const key of keys) {
        const now = (inFlight.get(key) ?? 0) + 1;
        inFlight.set(key, now);
        maxInFlight.set(key, Math.max(maxInFlight.get(key) ?? 0, now));
      }
      try {
        return await behaviour(entry, received.filter((r) => r.path === path).length);
      } finally {
        for (const key of keys) inFlight.set(key, inFlight.get(key)! - 1);
      }
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    received,
    maxInFlight,
    behave: (fn) => void (behaviour = fn),
    stop: () => void server.stop(true),
  };
}

/** Fast retries and timeouts so the tests take seconds; production keeps the named defaults. */
export const FAST: WorkerOptions = { scanIntervalMs: 300, timeoutMs: 3000, backoff: { baseMs: 50, capMs: 400 } };

export function testWorker(services: Services, bots: Set<string>, options: WorkerOptions = {}): Promise<WebhookWorker> {
  return startWebhookWorker(services, { ...FAST, accept: (id) => bots.has(id), ...options });
}

export interface Fixture {
  client: Client;
  alice: TestUser;
  receiver: Receiver;
  worker: WebhookWorker;
  /** The bots this file's worker delivers for (the test database is shared). */
  mine: Set<string>;
}

/** A file's client, user, receiver (answering 200 unless a test says otherwise) and worker. */
export function workerFixture(): Fixture {
  const fx = { mine: new Set<string>() } as Fixture;
  beforeAll(async () => {
    fx.client = await testClient();
    fx.alice = await registerUser(fx.client);
    fx.receiver = startReceiver();
    fx.worker = await testWorker(fx.client.services, fx.mine);
  });
  afterEach(() => fx.receiver.behave(() => new Response("ok")));
  afterAll(async () => {
    await fx.worker.stop();
    fx.receiver.stop();
  });
  return fx;
}

/** Leases with a short TTL, of the platform's kind (JetStream KV in production mode). */
export async function shortLeases(platform: Platform, ttlMs: number): Promise<Leases> {
  return platform.nats ? jetStreamLeases(platform.nats, { ttlMs, bucket: "LEASES_WEBHOOK_TEST" }) : memoryLeases({ ttlMs });
}

export async function incoming(client: Client, bot: TestBot, chatId: string, text: string) {
  const res = await client.post("/api/messages", { bot_id: bot.id, chat_id: chatId, text, channel: "web", user: { id: "u1" } });
  if (res.status !== 200) throw new Error(`incoming failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.result;
}

export { eventually as until } from "../support/eventually.ts";

/** The chat of an Update or a callback body. */
function chatOf(body: any): string | undefined {
  return (body?.message ?? body?.operator_message ?? body?.edited_message)?.chat?.id ?? body?.conversation?.chat_id;
}

/** update_ids per chat in the order they first arrived (update_ids are per bot: one path per bot). */
export function arrivals(received: Received[]): Map<string, number[]> {
  const seen = new Set<string>();
  const perChat = new Map<string, number[]>();
  for (const r of received) {
    const update = r.body;
    const key = `${r.path} ${update.update_id}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const chat = chatOf(update)!;
    perChat.set(chat, [...(perChat.get(chat) ?? []), update.update_id]);
  }
  return perChat;
}
