// Publishing is pipelined, so the log may hold update N+1 before N. A reader must never be
// handed N+1 while N is committed and still on its way (its bot would confirm past N and N
// would be lost), yet a gap nothing will fill (confirmed, expired) must not block it forever.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { insertOutboxRows } from "../../src/db/outbox.ts";
import { orderedLog } from "../../src/outbox/ordered-log.ts";
import type { LogUpdate, UpdateLog } from "../../src/updates/log.ts";
import { createTestBot, registerUser, testClient, type Client } from "../support/harness.ts";

let client: Client;

beforeAll(async () => {
  client = await testClient();
});
afterAll(() => client.platform.close());

const update = (id: number) => ({ update_id: id, payload: { update_id: id, message: { text: `u${id}` } } });

describe("reading behind a gap", () => {
  test("updates after one still in the outbox wait for it; a gap with nothing on its way does not block", async () => {
    const bot = await createTestBot(client, await registerUser(client));
    const { db, updates } = client.platform;
    // What get-updates and the webhook worker read (the payloads here are not full Updates).
    const poll = async (from: number) => (await updates.read(bot.id, from, 100)).map((u) => u.update_id);

    // Updates 1-3 committed; 2 and 3 landed, 1's publish is still on its way.
    await insertOutboxRows(db, bot.id, [1, 2, 3].map((id) => ({ updateId: id, payload: JSON.stringify(update(id).payload) })));
    await updates.appendMany(bot.id, [update(2), update(3)]);
    expect(await poll(0)).toEqual([]);

    await updates.appendMany(bot.id, [update(1)]);
    expect(await poll(0)).toEqual([1, 2, 3]);

    // 2 and 3 are out of the outbox, 1 is not yet: only what precedes a missing id waits.
    await db.query(`delete from outbox where bot_id = $1 and update_id in (2, 3)`, [bot.id]);
    await insertOutboxRows(db, bot.id, [5].map((id) => ({ updateId: id, payload: "{}" })));
    await updates.appendMany(bot.id, [update(4), update(6)]);
    expect(await poll(4)).toEqual([4]);

    // 5 is no longer on its way (say it expired): 6 is delivered.
    await db.query(`delete from outbox where bot_id = $1`, [bot.id]);
    expect(await poll(5)).toEqual([6]);
  });

  test("confirmed updates whose outbox rows are not yet removed do not hold back a read without an offset", async () => {
    const bot = await createTestBot(client, await registerUser(client));
    const { db, updates } = client.platform;
    const poll = async (from: number) => (await updates.read(bot.id, from, 100)).map((u) => u.update_id);
    // 1-4 published; their outbox rows are removed lazily, after publishing, so they linger.
    await insertOutboxRows(db, bot.id, [1, 2, 3, 4].map((id) => ({ updateId: id, payload: JSON.stringify(update(id).payload) })));
    await updates.appendMany(bot.id, [1, 2, 3, 4].map(update));
    // The bot confirms 1 and 2 (get-updates with offset 3), then polls again without an offset.
    await updates.confirm(bot.id, 3);
    expect(await poll(3)).toEqual([3, 4]);
    expect(await poll(0)).toEqual([3, 4]);
    // Above the watermark a lingering row still holds a reader back: 6 waits for 5.
    await insertOutboxRows(db, bot.id, [5].map((id) => ({ updateId: id, payload: "{}" })));
    await updates.appendMany(bot.id, [update(6)]);
    expect(await poll(0)).toEqual([3, 4]);
  });

  test("an update acknowledged but not yet readable (a stream leader just elected) is not passed over", async () => {
    const bot = await createTestBot(client, await registerUser(client));
    // The log a new JetStream leader serves before it has applied what its predecessor
    // acknowledged: update 1 is published (its outbox row gone) but only readable once settled.
    const readable = new Set([2, 3]);
    const unreadable = new Set([1]);
    let settleFails = false;
    const lagging: UpdateLog = {
      ...client.platform.updates,
      async read(_botId, from, limit) {
        return [...readable].filter((id) => id >= from).sort((a, b) => a - b).slice(0, limit)
          .map((id): LogUpdate => ({ update_id: id, payload: update(id).payload, date: 0 }));
      },
      async confirmedBelow() {
        return 0;
      },
      async settle() {
        if (settleFails) throw new Error("no stream leader");
        for (const id of unreadable) readable.add(id);
        unreadable.clear();
      },
    };
    const passed: number[][] = [];
    const updates = orderedLog(lagging, client.platform.db, (_botId, ids) => passed.push(ids));
    const poll = async (from: number) => (await updates.read(bot.id, from, 100)).map((u) => u.update_id);

    // The leader cannot be reached to settle: the gap stays closed.
    settleFails = true;
    expect(await poll(1)).toEqual([]);
    settleFails = false;
    expect(await poll(1)).toEqual([1, 2, 3]);
    expect(passed).toEqual([]);
    // A gap still there once settled is one nothing will fill (erased, say): passed, and said.
    readable.add(5);
    expect(await poll(4)).toEqual([5]);
    expect(passed).toEqual([[4]]);
  });
});
