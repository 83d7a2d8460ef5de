// Two workers, one lease per bot: a crashed worker's bots are taken over once its leases
// expire, nothing is lost (at-least-once), per-chat order holds, and no bot is ever
// delivered by both at once.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import type { Leases } from "../../src/leases/leases.ts";
import { findDeliveredRange } from "../../src/db/webhooks.ts";
import type { WebhookWorker } from "../../src/workers/webhook.ts";
import { createTestBot, registerUser, testClient, type Client, type TestBot, type TestUser } from "../support/harness.ts";
import { arrivals, incoming, shortLeases, startReceiver, testWorker, until, type Receiver } from "./support.ts";

/** Short, so a takeover takes a second or two, yet several renewals long. */
const TTL_MS = 1500;
/**
 * Why: the one-connection bot's 30 updates take 4.5 s to deliver, so work is surely left
 * for the second worker when the first is killed (at 40 ms a slow machine's first worker
 * could deliver everything while the messages were still being sent, leaving no takeover).
 */
const SERIAL_ANSWER_MS = 150;

let client: Client;
let alice: TestUser;
let receiver: Receiver;
let leases: Leases;
const mine = new Set<string>();
const workers: WebhookWorker[] = [];

beforeAll(async () => {
  client = await testClient();
  alice = await registerUser(client);
  receiver = startReceiver(async (entry) => {
    await Bun.sleep(entry.path === "/serial" ? SERIAL_ANSWER_MS : 40);
    return new Response("ok");
  });
  leases = await shortLeases(client.platform, TTL_MS);
});
// A test that failed half-way must not leave its workers delivering into the next one.
afterEach(async () => {
  await Promise.all(workers.map((w) => w.stop()));
});
afterAll(async () => {
  await Promise.all(workers.map((w) => w.stop()));
  await leases.close();
  receiver.stop();
});

const worker = async () => {
  const w = await testWorker(client.services, mine, { leases, leaseTtlMs: TTL_MS, scanIntervalMs: 200 });
  workers.push(w);
  return w;
};

async function hookedBot(path: string, maxConnections: number): Promise<TestBot> {
  const bot = await createTestBot(client, alice);
  mine.add(bot.id);
  await client.post(`/api/bots/${bot.id}/set-webhook`, { url: `${receiver.url}${path}`, max_connections: maxConnections }, bot.token);
  return bot;
}

/** Sends `rounds` messages to each of `chats` chats; returns the chat ids with their update order to come. */
async function traffic(bot: TestBot, chats: number, rounds: number): Promise<string[]> {
  const ids = Array.from({ length: chats }, () => `t-${crypto.randomUUID()}`);
  for (let round = 0; round < rounds; round++) {
    await Promise.all(ids.map((c) => incoming(client, bot, c, `${c} ${round}`)));
  }
  return ids;
}

describe("takeover", () => {
  test("kill the worker mid-delivery and start another: nothing lost, order per chat, never two deliverers", async () => {
    const first = await worker();
    const serial = await hookedBot("/serial", 1);
    const parallel = await hookedBot("/parallel", 3);
    await until("first worker delivering", () => first.holds("webhook", serial.id) && first.holds("webhook", parallel.id));
    const chats = [...(await traffic(serial, 3, 10)), ...(await traffic(parallel, 3, 10))];
    await until("some delivered", () => receiver.received.length >= 10);
    await first.crash();
    const crashedAt = Date.now();
    const second = await worker();
    const distinct = () => new Set(receiver.received.map((r) => `${r.path} ${r.body.update_id}`)).size;
    await until("every update delivered", () => distinct() === 60, 30_000);
    expect(second.holds("webhook", serial.id)).toBe(true);
    expect(second.holds("webhook", parallel.id)).toBe(true);
    // The second worker waited for the crashed one's leases to expire.
    const afterCrash = receiver.received.filter((r) => r.at > crashedAt + 100);
    expect(afterCrash[0]!.at - crashedAt).toBeGreaterThanOrEqual(TTL_MS * 0.5);
    // Never two requests of the serial bot at once (it allows one connection), never two of one chat.
    expect(receiver.maxInFlight.get("/serial")).toBe(1);
    expect(receiver.maxInFlight.get("/parallel")).toBeLessThanOrEqual(3);
    for (const chat of chats.slice(3)) expect(receiver.maxInFlight.get(`/parallel ${chat}`)).toBe(1);
    // Every chat's updates first arrived in the order they were made.
    const perChat = arrivals(receiver.received);
    expect([...perChat.keys()].sort()).toEqual([...chats].sort());
    for (const [, ids] of perChat) {
      expect(ids).toHaveLength(10);
      expect(ids).toEqual([...ids].sort((a, b) => a - b));
    }
    for (const bot of [serial, parallel]) {
      await until("confirmed", async () => {
        const info = await client.get(`/api/bots/${bot.id}/get-webhook-info`, bot.token);
        return info.body.result.pending_update_count === 0;
      });
    }
    await Promise.all(workers.map((w) => w.stop()));
  });

  test("a takeover resends at most what was in flight, not what was delivered past a stuck chat", async () => {
    const path = "/stuck";
    const maxConnections = 4;
    const stuck = `stuck-${crypto.randomUUID()}`;
    let failing = true;
    // The stuck chat's updates are the bot's lowest, so the log's watermark cannot pass them
    // while every other chat is delivered beyond it.
    receiver.behave(async (req) => {
      if (req.path === path && failing && req.body.message?.chat.id === stuck) return new Response("down", { status: 500 });
      await Bun.sleep(40);
      return new Response("ok");
    });
    const first = await worker();
    const bot = await hookedBot(path, maxConnections);
    await until("first worker delivering", () => first.holds("webhook", bot.id));
    for (const text of ["s0", "s1", "s2"]) await incoming(client, bot, stuck, text);
    const others = await traffic(bot, 6, 10);
    const at = () => receiver.received.filter((r) => r.path === path);
    const othersDelivered = () => new Set(at().filter((r) => r.body.message.chat.id !== stuck).map((r) => r.body.update_id));
    await until("every other chat delivered", () => othersDelivered().size === 60);
    // Only the stuck chat is left; a few more of its failed attempts leave the worker ample
    // time to write down what it delivered (coalesced every 50 ms).
    const stuckAttempts = () => at().filter((r) => r.body.message.chat.id === stuck).length;
    const attemptsThen = stuckAttempts();
    await until("the stuck chat retried", () => stuckAttempts() >= attemptsThen + 3);
    const delivered = othersDelivered();
    const seenBeforeCrash = at().length;
    await first.crash();
    const second = await worker();
    failing = false;
    await until("the stuck chat delivered", () => new Set(at().filter((r) => r.body.message.chat.id === stuck).map((r) => r.body.update_id)).size === 3);
    await until("confirmed", async () => {
      const info = await client.get(`/api/bots/${bot.id}/get-webhook-info`, bot.token);
      return info.body.result.pending_update_count === 0;
    });
    expect(second.holds("webhook", bot.id)).toBe(true);
    const repeats = at().slice(seenBeforeCrash).filter((r) => delivered.has(r.body.update_id)).length;
    console.info(`takeover past a stuck chat: ${delivered.size} delivered before the crash, ${repeats} repeated after it`);
    // At the crash only the stuck chat was in flight; the backlog delivered beyond it is not resent.
    expect(repeats).toBeLessThanOrEqual(maxConnections);
    const perChat = arrivals(at());
    expect([...perChat.keys()].sort()).toEqual([stuck, ...others].sort());
    for (const [, ids] of perChat) expect(ids).toEqual([...ids].sort((a, b) => a - b));
    // Once the confirm has passed them, the records of what was delivered are deleted.
    await until("records pruned", async () => (await findDeliveredRange(client.platform.db, bot.id)).highest === null);
    await Promise.all(workers.map((w) => w.stop()));
  });

  test("a graceful stop hands the bot over at once", async () => {
    const before = await worker();
    const bot = await hookedBot("/handover", 2);
    await until("held", () => before.holds("webhook", bot.id));
    await before.stop();
    const stoppedAt = Date.now();
    const after = await worker();
    await until("taken over", () => after.holds("webhook", bot.id));
    expect(Date.now() - stoppedAt).toBeLessThan(TTL_MS);
    const [chatId] = await traffic(bot, 1, 1);
    await until("delivered by the new worker", () => receiver.received.some((r) => r.body.message?.chat.id === chatId));
    await Promise.all(workers.map((w) => w.stop()));
  });
});
