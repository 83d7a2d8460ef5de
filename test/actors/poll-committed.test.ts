// A poll parked in the process that commits a message is answered from the committed batch
// (durable in the outbox), not after the log append and the broker's wake-up: but only under
// the log's gap rule, so the poll never skips an id; everything else still waits for the log.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { BotActor, pollParkedHere, type BotActorDeps } from "../../src/actors/bot.ts";
import { ActorSystem } from "../../src/actors/system.ts";
import { memoryBus } from "../../src/bus/memory.ts";
import type { LogUpdate, UpdateLog } from "../../src/updates/log.ts";
import { createTestBot, MODE, registerUser, testClient, type Client, type TestUser } from "../support/harness.ts";

const update = (id: number): LogUpdate => ({ update_id: id, payload: { update_id: id, message: { text: `m${id}` } }, date: 0 });

describe("a parked poll offered a committed batch (the actor alone)", () => {
  const system = new ActorSystem();
  // The log is empty to the poll: it parks at once.
  const log = { confirm: async () => {}, read: async () => [], tail: async () => [] } as unknown as UpdateLog;
  const deps: BotActorDeps = {
    log, bus: memoryBus(), instanceId: "test", rateLimits: false, sendPerSecond: 30, stopping: new AbortController().signal,
  };
  afterAll(() => system.close());

  async function parkedFrom(offset: number, botId = "b") {
    const ref = system.actorOf<BotActor>("bot", crypto.randomUUID(), () => new BotActor(deps, botId, (work) => ref.tell(work)));
    const { wait } = await ref.ask((actor) => actor.poll({ offset, limit: 100, timeoutMs: 2000 }));
    let answer: number[] | undefined;
    void wait.then((got) => (answer = got.map((u) => u.update_id)));
    const offer = async (ids: number[]) => {
      await ref.ask((actor) => actor.offerCommitted(ids.map(update)));
      await Bun.sleep(0);
      return answer;
    };
    return { offer, wait };
  }

  test("a batch that starts after a gap does not answer: the missing id may still be on its way", async () => {
    const poll = await parkedFrom(5);
    expect(await poll.offer([6, 7])).toBeUndefined();
    // The id it waits for, then the rest without a gap: all of them.
    expect(await poll.offer([5, 6, 7])).toEqual([5, 6, 7]);
  });

  test("ids below the offset are left out; a gap inside the batch cuts the answer before it", async () => {
    const poll = await parkedFrom(5);
    expect(await poll.offer([3, 4, 5, 6, 8])).toBeUndefined();
    expect(await poll.offer([4, 5, 6])).toEqual([5, 6]);
  });

  test("pollParkedHere: true while a poll of the bot is parked, false once it is answered", async () => {
    const botId = crypto.randomUUID();
    expect(pollParkedHere(deps, botId)).toBe(false);
    const poll = await parkedFrom(1, botId);
    expect(pollParkedHere(deps, botId)).toBe(true);
    expect(await poll.offer([1])).toEqual([1]);
    expect(pollParkedHere(deps, botId)).toBe(false);
  });

  test("a poll without an offset waits for update 1 first", async () => {
    const poll = await parkedFrom(0);
    expect(await poll.offer([2])).toBeUndefined();
    expect(await poll.offer([1, 2])).toEqual([1, 2]);
  });
});

// Embedded, the log is written by the batch's own transaction: there is no later append to skip.
describe.skipIf(MODE !== "production")("POST → a poll parked in the same process (production)", () => {
  let client: Client;
  let user: TestUser;
  beforeAll(async () => {
    client = await testClient();
    user = await registerUser(client);
  });
  afterAll(() => client.platform.close());

  test("the poll answers before the log append does; the POST itself still waits for the log", async () => {
    const bot = await createTestBot(client, user);
    const log = client.platform.updates;
    const appendMany = log.appendMany;
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    log.appendMany = async (botId, updates) => {
      if (botId === bot.id) await held;
      return appendMany(botId, updates);
    };
    try {
      const poll = client.get(`/api/bots/${bot.id}/get-updates?timeout=10`, bot.token);
      await Bun.sleep(300);
      let posted = false;
      const post = client.post("/api/messages", { bot_id: bot.id, chat_id: "fast", text: "before the log" }).then((res) => {
        posted = true;
        return res;
      });
      const answered = await poll;
      expect(answered.status).toBe(200);
      expect(answered.body.result.map((u: any) => u.message.text)).toEqual(["before the log"]);
      // Acknowledged only once durable in the log, as before.
      expect(posted).toBe(false);
      release();
      expect((await post).status).toBe(200);
      // The next poll confirms it; the late append does not bring it back.
      const next = await client.get(`/api/bots/${bot.id}/get-updates?timeout=0&offset=${answered.body.result[0].update_id + 1}`, bot.token);
      expect(next.body.result).toEqual([]);
    } finally {
      release();
      log.appendMany = appendMany;
    }
  });

  test("the poll's answer is complete before the batch's log append starts (both share the event loop)", async () => {
    const bot = await createTestBot(client, user);
    const log = client.platform.updates;
    const appendMany = log.appendMany;
    const order: string[] = [];
    log.appendMany = async (botId, updates) => {
      if (botId === bot.id) order.push("append");
      return appendMany(botId, updates);
    };
    try {
      const poll = client.get(`/api/bots/${bot.id}/get-updates?timeout=10`, bot.token).then((res) => {
        order.push("poll answered");
        return res;
      });
      await Bun.sleep(300);
      const post = client.post("/api/messages", { bot_id: bot.id, chat_id: "first", text: "poll first" });
      expect((await poll).body.result.map((u: any) => u.message.text)).toEqual(["poll first"]);
      expect((await post).status).toBe(200);
      expect(order).toEqual(["poll answered", "append"]);
    } finally {
      log.appendMany = appendMany;
    }
  });
});
