// SQL-only behaviour of the update log (the shared contract is in update-log.test.ts).
import { describe, expect, test } from "bun:test";
import { randomUUID } from "node:crypto";
import { UPDATE_RETENTION_MS } from "../../src/updates/log.ts";
import { openSqlLog } from "../../src/updates/sql.ts";
import type { Queryable } from "../../src/db/driver.ts";
import { sharedDb } from "../support/harness.ts";

const rows = async (bot: string) => {
  const db = await sharedDb();
  const r = await db.query<{ n: number }>(`select count(*)::int8 as n from update_log where bot_id = $1`, [bot]);
  return Number(r[0]!.n);
};

describe("sql update log", () => {
  test("confirm and drop delete the rows, not only hide them", async () => {
    const log = await openSqlLog(await sharedDb(), { sweepIntervalMs: 0 });
    const bot = randomUUID();
    for (let id = 1; id <= 4; id++) await log.append(bot, { update_id: id, payload: { n: id } });
    await log.confirm(bot, 3);
    expect(await rows(bot)).toBe(2);
    await log.append(bot, { update_id: 1, payload: {} }); // below the watermark: not even stored
    expect(await rows(bot)).toBe(2);
    await log.drop(bot);
    expect(await rows(bot)).toBe(0);
    await log.close();
  });

  test("one append carries several bots' updates; each bot's own watermark skips only its own", async () => {
    const db = await sharedDb();
    const log = await openSqlLog(db, { sweepIntervalMs: 0 });
    const [a, b] = [randomUUID(), randomUUID()];
    for (let id = 1; id <= 3; id++) await log.append(a, { update_id: id, payload: { n: id } });
    await log.confirm(a, 3);
    const statements: string[] = [];
    const counting: Queryable = { query: <T>(text: string, params?: unknown[]) => (statements.push(text), db.query<T>(text, params)), exec: db.exec.bind(db) };
    await log.appendWithin(counting, [
      { botId: a, updates: [{ update_id: 2, payload: { late: true } }, { update_id: 4, payload: { n: 4 } }] },
      { botId: b, updates: [{ update_id: 1, payload: { n: 1 } }, { update_id: 2, payload: { n: 2 } }] },
    ]);
    expect(statements.length).toBe(1);
    expect((await log.read(a, 0, 10)).map((u) => [u.update_id, u.payload])).toEqual([[3, { n: 3 }], [4, { n: 4 }]]);
    expect((await log.read(b, 0, 10)).map((u) => u.update_id)).toEqual([1, 2]);
    await log.close();
  });

  // The sweep is global and the database may be shared with other test processes: the
  // clock starts days in the past so "expired" never reaches anybody else's rows.
  const longAgo = () => Date.now() - 3 * UPDATE_RETENTION_MS;

  test("sweep deletes expired rows of every bot", async () => {
    let t = longAgo();
    const log = await openSqlLog(await sharedDb(), { now: () => t, sweepIntervalMs: 0 });
    const a = randomUUID();
    const b = randomUUID();
    await log.append(a, { update_id: 1, payload: {} });
    await log.append(b, { update_id: 1, payload: {} });
    t += UPDATE_RETENTION_MS / 2;
    await log.append(b, { update_id: 2, payload: {} });
    t += UPDATE_RETENTION_MS / 2;
    expect(await log.sweep()).toBeGreaterThanOrEqual(2);
    expect(await rows(a)).toBe(0);
    expect(await rows(b)).toBe(1);
    await log.close();
  });

  test("the periodic sweep runs on its own and stops on close", async () => {
    let t = longAgo();
    const log = await openSqlLog(await sharedDb(), { now: () => t, sweepIntervalMs: 20 });
    const bot = randomUUID();
    await log.append(bot, { update_id: 1, payload: {} });
    t += UPDATE_RETENTION_MS;
    const deadline = Date.now() + 5000;
    while ((await rows(bot)) > 0 && Date.now() < deadline) await Bun.sleep(20);
    expect(await rows(bot)).toBe(0);
    await log.close();
  });
});
