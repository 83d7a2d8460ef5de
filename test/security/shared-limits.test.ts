// Rate limits across processes: with NATS, platforms of one deployment (here: two platforms
// given the same limit scope, standing in for two web processes) share each limit through
// JetStream KV; embedded, each process counts alone.
import { afterAll, describe, expect, test } from "bun:test";
import { DEFAULT_RATE_LIMITS } from "../../src/config.ts";
import { MINUTE_MS, RateLimiter, SHARED_SYNC_MS, type CounterStore, type Seen } from "../../src/ratelimit.ts";
import { createTestBot, MODE, registerUser, testClient, type Client } from "../support/harness.ts";

const LIMIT = 6;
/** Long enough for a batch to be sent and the other platform to hear of it. */
const SETTLE_MS = SHARED_SYNC_MS * 4;

const clients: Client[] = [];
afterAll(async () => {
  for (const client of clients) await client.platform.close();
});

async function twoProcesses(): Promise<[Client, Client]> {
  const limitScope = `shared-limits-${crypto.randomUUID()}`;
  const config = { rateLimits: true, limits: { ...DEFAULT_RATE_LIMITS, publicPerIp: 10_000, publicPerBot: LIMIT } };
  const a = await testClient(config, { limitScope });
  const b = await testClient(config, { limitScope });
  clients.push(a, b);
  return [a, b];
}

/**
 * Shared limits count per minute of the clock (every process must name the same window): a test
 * whose requests straddle a minute's end starts counting again halfway. Theirs start with this
 * much of the minute left. (A process's own limits count from their first request.)
 */
const MINUTE_LEFT_MS = 5_000;
async function clearOfMinuteEnd(): Promise<void> {
  const left = MINUTE_MS - (Date.now() % MINUTE_MS);
  if (left < MINUTE_LEFT_MS) await Bun.sleep(left + 50);
}

const post = (client: Client, botId: string, i: number) =>
  client.post("/api/messages", { bot_id: botId, chat_id: `visitor-${i}`, text: `m${i}` }).then((r) => r.status);

describe.if(MODE === "production")("with NATS: one limit for every process", () => {
  test(`a limit of ${LIMIT} per bot is reached by requests spread over two processes`, async () => {
    const [a, b] = await twoProcesses();
    const user = await registerUser(a);
    const bot = await createTestBot(a, user);
    await clearOfMinuteEnd();
    const statuses: number[] = [];
    for (let i = 0; i < LIMIT / 2; i++) statuses.push(await post(a, bot.id, i));
    await Bun.sleep(SETTLE_MS);
    for (let i = LIMIT / 2; i < LIMIT; i++) statuses.push(await post(b, bot.id, i));
    await Bun.sleep(SETTLE_MS);
    statuses.push(await post(a, bot.id, 100), await post(b, bot.id, 101));
    expect(statuses).toEqual([...Array(LIMIT).fill(200), 429, 429]);
    const refused = await a.post("/api/messages", { bot_id: bot.id, chat_id: "late", text: "x" });
    expect(refused.body).toMatchObject({ ok: false, error_code: 429 });
    expect(refused.body.retry_after).toBeGreaterThan(0);
  });

  test("concurrent bursts on both overshoot by at most one sync interval's worth each", async () => {
    const [a, b] = await twoProcesses();
    const user = await registerUser(a);
    const bot = await createTestBot(a, user);
    await clearOfMinuteEnd();
    const burst = await Promise.all(Array.from({ length: 4 * LIMIT }, (_, i) => post(i % 2 ? a : b, bot.id, i)));
    const admitted = burst.filter((s) => s === 200).length;
    expect(admitted).toBeGreaterThanOrEqual(LIMIT);
    expect(admitted).toBeLessThanOrEqual(2 * LIMIT);
    await Bun.sleep(SETTLE_MS);
    expect([await post(a, bot.id, 200), await post(b, bot.id, 201)]).toEqual([429, 429]);
  });
});

describe.if(MODE === "embedded")("embedded: limits are per process", () => {
  test("two platforms count on their own", async () => {
    const [a, b] = await twoProcesses();
    const user = await registerUser(a);
    const bot = await createTestBot(a, user);
    const statuses: number[] = [];
    for (let i = 0; i < LIMIT; i++) statuses.push(await post(a, bot.id, i));
    statuses.push(await post(a, bot.id, 100));
    expect(statuses).toEqual([...Array(LIMIT).fill(200), 429]);
    expect(await post(b, bot.id, 101)).toBe(200);
  });
});

describe("RateLimiter over a shared store", () => {
  /**
   * A clock that stays half a minute into one window. On the real clock these tests failed when
   * they ran across a minute's end (CI, once): a window that has ended is no longer sent (nothing
   * left to share), so the batch they wait for never came.
   */
  const midWindow = () => Date.UTC(2026, 0, 1, 0, 0, 30);
  /** An in-memory CounterStore: what JetStream KV does, without NATS. */
  function memoryStore(): CounterStore & { writes: number } {
    const values = new Map<string, Seen>();
    const listeners: Array<(key: string, seen: Seen) => void> = [];
    let revision = 0;
    return {
      writes: 0,
      async add(key, delta) {
        this.writes += 1;
        const seen = { total: (values.get(key)?.total ?? 0) + delta, revision: ++revision };
        values.set(key, seen);
        for (const listener of listeners) listener(key, seen);
        return seen;
      },
      async watch(onWrite) {
        listeners.push(onWrite);
        return () => listeners.splice(listeners.indexOf(onWrite), 1);
      },
    };
  }

  test("the request path only counts in memory; batches carry the counts; limits meet across limiters", async () => {
    const store = memoryStore();
    const one = new RateLimiter(true, midWindow, { store, scope: "s" });
    const two = new RateLimiter(true, midWindow, { store, scope: "s" });
    for (let i = 0; i < 50; i++) one.take("k", 100, 60_000);
    expect(store.writes).toBe(0);
    await Bun.sleep(SETTLE_MS);
    // 50 requests, one write: the batch, not the request, costs a round trip.
    expect(store.writes).toBe(1);
    for (let i = 0; i < 50; i++) two.take("k", 100, 60_000);
    expect(() => two.take("k", 100, 60_000)).toThrow("too many requests");
    await Bun.sleep(SETTLE_MS);
    expect(() => one.take("k", 100, 60_000)).toThrow("too many requests");
    // Another scope is another deployment.
    const other = new RateLimiter(true, midWindow, { store, scope: "t" });
    other.take("k", 100, 60_000);
    await Promise.all([one.close(), two.close(), other.close()]);
  });

  test("a store that fails keeps counting in the process and retries later", async () => {
    let up = false;
    const seen: Seen = { total: 0, revision: 0 };
    const store: CounterStore = {
      async add(_key, delta) {
        if (!up) throw new Error("NATS away");
        seen.total += delta;
        seen.revision += 1;
        return { ...seen };
      },
      watch: async () => () => {},
    };
    const errors: unknown[] = [];
    const limiter = new RateLimiter(true, midWindow, { store, scope: "s", onError: (err) => errors.push(err) });
    for (let i = 0; i < 3; i++) limiter.take("k", 3, 60_000);
    expect(() => limiter.take("k", 3, 60_000)).toThrow("too many requests");
    await Bun.sleep(SETTLE_MS);
    expect(errors.length).toBe(1);
    up = true;
    await Bun.sleep(SETTLE_MS);
    expect(seen.total).toBe(3);
    expect(() => limiter.take("k", 3, 60_000)).toThrow("too many requests");
    await limiter.close();
  });
});
