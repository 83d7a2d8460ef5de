// Published updates are kept a while (sql/330): NATS acknowledges an append before it flushes it,
// so a power cut of its machine can take updates whose outbox rows were gone. A reader meeting
// such a gap, or a lost tail after a reconnect, gets them back from the kept rows; the relay lets
// go of rows past OUTBOX_KEEP_MS; an erased chat's kept rows go with it.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomUUID } from "node:crypto";
import type { PendingUpdate } from "../../src/core/events.ts";
import type { Db } from "../../src/db/driver.ts";
import { eraseConversations } from "../../src/db/erasure.ts";
import { deleteOutboxPairs, deleteOutboxUpTo, insertOutboxRows } from "../../src/db/outbox.ts";
import { orderedLog } from "../../src/outbox/ordered-log.ts";
import { startOutboxRelay, OUTBOX_KEEP_MS } from "../../src/outbox/relay.ts";
import {
  createKeptRepair, repairTailsAfterRestart, REPAIR_AGAIN_MS, REPAIR_ATTEMPTS, REPAIR_MAX_IDS, TAIL_ROUND_IDS,
} from "../../src/outbox/repair.ts";
import { natsServerSeen } from "../../src/db/outbox.ts";
import type { LogUpdate, UpdateLog } from "../../src/updates/log.ts";
import { natsNames } from "../../src/core/subjects.ts";
import { HDR_UPDATE_ID } from "../../src/updates/jetstream-index.ts";
import { createTestBot, MODE, registerUser, testClient, type Client } from "../support/harness.ts";

let client: Client;

beforeAll(async () => {
  client = await testClient();
});
afterAll(() => client.platform.close());

const payload = (id: number, chat = "c1") => ({ update_id: id, message: { text: `u${id}`, chat: { id: chat } } });

async function botWithPublished(ids: number[], chat = "c1"): Promise<string> {
  const bot = await createTestBot(client, await registerUser(client));
  const { db } = client.platform;
  await insertOutboxRows(db, bot.id, ids.map((id) => ({ updateId: id, payload: JSON.stringify(payload(id, chat)) })));
  // Published: the intake's forget and a pump round both move the rows aside.
  await deleteOutboxPairs(db, ids.slice(0, 1).map(() => bot.id), ids.slice(0, 1));
  await deleteOutboxUpTo(db, bot.id, Math.max(...ids));
  return bot.id;
}

const kept = async (botId: string) =>
  (await client.platform.db.query<{ update_id: number }>(`select update_id from outbox_kept where bot_id = $1 order by update_id`, [botId]))
    .map((r) => Number(r.update_id));

describe("published updates kept against a lost log", () => {
  test("published rows leave the outbox and are kept; a gap's kept updates are republished, again when lost again, a few times", async () => {
    const botId = await botWithPublished([1, 2, 3]);
    expect((await client.platform.db.query(`select 1 from outbox where bot_id = $1`, [botId])).length).toBe(0);
    expect(await kept(botId)).toEqual([1, 2, 3]);
    const published: PendingUpdate[] = [];
    let clock = 1_000_000;
    const repair = createKeptRepair(client.platform.db, async (_botId, list) => void published.push(...list), client.platform.logger, () => clock);
    expect(await repair.gap(botId, [2, 3, 9])).toBe(true);
    expect(published.map((u) => [u.updateId, u.payload])).toEqual([[2, payload(2)], [3, payload(3)]]);
    // A moment later the republish is on its way: the reader holds back, nothing goes twice.
    expect(await repair.gap(botId, [2])).toBe(true);
    expect(published).toHaveLength(2);
    // Still missing REPAIR_AGAIN_MS later, it was lost again (a cluster losing its next leader): once more.
    for (let attempt = 2; attempt <= REPAIR_ATTEMPTS; attempt++) {
      clock += REPAIR_AGAIN_MS;
      expect(await repair.gap(botId, [2])).toBe(true);
    }
    expect(published.map((u) => u.updateId)).toEqual([2, 3, ...Array<number>(REPAIR_ATTEMPTS - 1).fill(2)]);
    // Past REPAIR_ATTEMPTS the reader passes over it, as before the kept rows.
    clock += REPAIR_AGAIN_MS;
    expect(await repair.gap(botId, [2])).toBe(false);
    expect(published).toHaveLength(REPAIR_ATTEMPTS + 1);
    // A republish that failed (NATS still restarting) is not counted: the next read tries again.
    published.length = 0;
    let down = true;
    const flaky = createKeptRepair(client.platform.db, async (_botId, list) => {
      if (down) throw new Error("no responders");
      published.push(...list);
    }, client.platform.logger);
    await expect(flaky.gap(botId, [1])).rejects.toThrow("no responders");
    down = false;
    expect(await flaky.gap(botId, [1])).toBe(true);
    expect(published.map((u) => u.updateId)).toEqual([1]);
  });

  test("ids found neither kept nor in the outbox (an erased chat's) are asked for once per process", async () => {
    const botId = await botWithPublished([1, 2, 3]);
    const { db, logger } = client.platform;
    let asked = 0;
    const counting: Db = Object.assign(Object.create(db) as Db, {
      query: (text: string, params?: unknown[]) => {
        if (text.includes("outbox_kept")) asked++;
        return db.query(text, params);
      },
    });
    let clock = 1_000_000;
    const published: number[] = [];
    const repair = createKeptRepair(counting, async (_b, list) => void published.push(...list.map((u) => u.updateId)), logger, () => clock);
    expect(await repair.gap(botId, [7, 8])).toBe(false);
    expect(await repair.gap(botId, [7, 8])).toBe(false);
    expect(asked).toBe(1);
    // A kept id beside them is still asked for and republished.
    expect(await repair.gap(botId, [2, 7, 8])).toBe(true);
    expect([asked, published]).toEqual([2, [2]]);
    // Remembered as long as kept rows live, then asked again.
    clock += OUTBOX_KEEP_MS + 1;
    expect(await repair.gap(botId, [7])).toBe(false);
    expect(asked).toBe(3);
  });

  test("a reader holds back at a gap the kept rows fill, and reads them once republished", async () => {
    const botId = await botWithPublished([1, 2, 3]);
    // The log after a power cut of its NATS server: update 2 is gone, 1 and 3 are there.
    const held = new Set([1, 3]);
    const log: UpdateLog = {
      ...client.platform.updates,
      read: async (_botId, from, limit) => [...held].filter((id) => id >= from).sort((a, b) => a - b).slice(0, limit)
        .map((id): LogUpdate => ({ update_id: id, payload: payload(id), date: 0 })),
      confirmedBelow: async () => 0,
      settle: async () => {},
    };
    const repair = createKeptRepair(client.platform.db, async (_botId, list) => list.forEach((u) => held.add(u.updateId)), client.platform.logger);
    const passed: number[][] = [];
    const repaired = orderedLog(log, client.platform.db, (_b, ids) => passed.push(ids), (b, missing) => repair.gap(b, missing));
    const poll = async () => (await repaired.read(botId, 1, 100)).map((u) => u.update_id);
    expect(await poll()).toEqual([1]);
    expect(await poll()).toEqual([1, 2, 3]);
    expect(passed).toEqual([]);
    // Without the kept rows the same read passes over 2 (what happened before sql/330).
    held.delete(2);
    const unrepaired = orderedLog(log, client.platform.db, (_b, ids) => passed.push(ids));
    expect((await unrepaired.read(botId, 1, 100)).map((u) => u.update_id)).toEqual([1, 3]);
    expect(passed).toEqual([[2]]);
  });

  test("after a reconnect, kept updates above what the log still holds are republished (lost tails, several bots)", async () => {
    const [a, b] = [await botWithPublished([1, 2, 3, 4]), await botWithPublished([1, 2, 3])];
    const lastHeld = (held: Record<string, number>): UpdateLog => ({
      ...client.platform.updates,
      tail: async (bot) => (held[bot] ? [{ update_id: held[bot], payload: payload(held[bot]), date: 0 }] : []),
      confirmedBelow: async () => 0,
    });
    // Other tests' bots have kept rows too: only these bots' republishes are looked at.
    const republished = async (log: UpdateLog) => {
      const ids: string[] = [];
      const repair = createKeptRepair(client.platform.db, async (bot, list) => {
        if (bot === a || bot === b) ids.push(...list.map((u) => `${bot === a ? "a" : "b"}${u.updateId}`));
      }, client.platform.logger);
      await repair.tails(log);
      return ids.sort();
    };
    expect(await republished(lastHeld({ [a]: 2, [b]: 1 }))).toEqual(["a3", "a4", "b2", "b3"]);
    expect(await republished(lastHeld({ [a]: 4 }))).toEqual(["b1", "b2", "b3"]);
    expect(await republished(lastHeld({ [a]: 4, [b]: 3 }))).toEqual([]);
    // Where the last stored message is the newest kept update, the tail is not read at all.
    const tailsRead: string[] = [];
    const quick: UpdateLog = {
      ...lastHeld({ [a]: 2 }),
      lastAppended: async (bot) => (bot === a ? 4 : undefined),
      tail: async (bot) => (tailsRead.push(bot), []),
    };
    expect(await republished(quick)).toEqual(["b1", "b2", "b3"]);
    expect(tailsRead).not.toContain(a);
    expect(tailsRead).toContain(b);
  });

  test("a lost tail longer than one pass over the kept rows comes back whole, REPAIR_MAX_IDS per append", async () => {
    const ids = Array.from({ length: TAIL_ROUND_IDS + 3 }, (_, i) => i + 1);
    const botId = await botWithPublished(ids);
    const emptyLog: UpdateLog = { ...client.platform.updates, tail: async () => [], confirmedBelow: async () => 0 };
    const appends: number[][] = [];
    const repair = createKeptRepair(client.platform.db, async (b, list) => void (b === botId && appends.push(list.map((u) => u.updateId))), client.platform.logger);
    await repair.tails(emptyLog);
    expect(appends.flat()).toEqual(ids);
    expect(Math.max(...appends.map((a) => a.length))).toBe(REPAIR_MAX_IDS);
  });

  test("lost tails are looked for only when the NATS server is not the one last looked at", async () => {
    const { db, logger } = client.platform;
    const never = new AbortController().signal;
    let looked = 0;
    const look = (server: string) => repairTailsAfterRestart(db, () => server, async () => ++looked, logger, never);
    const first = `server-${Math.random()}`;
    await look(first);
    expect([looked, await natsServerSeen(db)]).toEqual([1, first]);
    // The same server (a process starting beside it, a brief network loss): nothing to look for.
    await look(first);
    expect(looked).toBe(1);
    // Restarted (a new server_id): looked for once more.
    await look(`server-${Math.random()}`);
    expect(looked).toBe(2);
  });

  test("the relay lets go of kept rows past OUTBOX_KEEP_MS; an erased chat's kept rows go at once", async () => {
    const botId = await botWithPublished([1, 2]);
    const { db, logger } = client.platform;
    await db.query(`update outbox_kept set kept_at = now() - make_interval(secs => $2::float8 / 1000 + 1) where bot_id = $1 and update_id = 1`, [botId, OUTBOX_KEEP_MS]);
    const relay = startOutboxRelay(db, async () => {}, logger, 0);
    await relay.runOnce();
    expect(await kept(botId)).toEqual([2]);

    // An erased chat: its kept updates (one naming its message, one carrying its payload) go with it.
    const bot = await createTestBot(client, await registerUser(client), "Erased");
    const sent = await client.post("/api/messages", { bot_id: bot.id, chat_id: "secret-chat", text: "forget me" });
    expect(sent.status).toBe(200);
    const [message] = await db.query<{ id: string; conversation_id: string }>(`select id, conversation_id from messages where bot_id = $1`, [bot.id]);
    await db.query(
      `insert into outbox_kept (bot_id, update_id, payload, message_ref) values ($1, 101, null, $2), ($1, 102, $3::text::jsonb, null), ($1, 103, $4::text::jsonb, null)`,
      [bot.id, message!.id, JSON.stringify(payload(102, "secret-chat")), JSON.stringify(payload(103, "another-chat"))],
    );
    await db.transaction(async (tx) => eraseConversations(tx, bot.id, [message!.conversation_id]));
    expect(await kept(bot.id)).toEqual([103]);
  });

  test.skipIf(MODE !== "production")("an update JetStream lost inside its duplicate window comes back (not dropped as a repeat of itself)", async () => {
    const botId = await botWithPublished([1, 2, 3]);
    const { outbox, updates, nats, config } = client.platform;
    await outbox.publishUpdates(botId, [1, 2, 3].map((id) => ({ botId, updateId: id, payload: payload(id) })));
    // A new stream leader without update 2 (seen in a NATS cluster, rounds 37–38): its msg-id is
    // still in the two-minute duplicate window, so a republish under the same id is "a repeat".
    const jsm = await nats!.jetstreamManager();
    const stream = natsNames(config.natsPrefix).updatesStream;
    const subject = (await jsm.streams.info(stream)).config.subjects[0]!.replace("*", botId);
    for (let seq = 1; ;) {
      const stored = await jsm.streams.getMessage(stream, { next_by_subj: subject, seq } as unknown as { seq: number });
      if (stored.header.get(HDR_UPDATE_ID) === "2") {
        await jsm.streams.deleteMessage(stream, stored.seq);
        break;
      }
      seq = stored.seq + 1;
    }
    updates.reindex?.();
    const reads: number[][] = [];
    for (let i = 0; i < 5 && reads.at(-1)?.length !== 3; i++) reads.push((await updates.read(botId, 1, 100)).map((u) => u.update_id));
    // Held back at the gap while the kept update 2 is republished, then all three, in order.
    expect(reads[0]).toEqual([1]);
    expect(reads.at(-1)).toEqual([1, 2, 3]);
  });

  test.skipIf(MODE !== "production")("the log's last stored update is one look: none yet, the newest append (a republish too), a marker hides it", async () => {
    const { updates } = client.platform;
    const bot = randomUUID();
    expect(await updates.lastAppended!(bot)).toBeUndefined();
    await updates.appendMany(bot, [1, 2, 3].map((id) => ({ update_id: id, payload: { n: id } })));
    expect(await updates.lastAppended!(bot)).toBe(3);
    // In the log's order, not by update_id: the look for lost tails then reads the whole tail.
    await updates.appendMany(bot, [{ update_id: 2, payload: { n: 2 }, republished: true }]);
    expect(await updates.lastAppended!(bot)).toBe(2);
    await updates.settle!(bot);
    expect(await updates.lastAppended!(bot)).toBeUndefined();
  });
});
