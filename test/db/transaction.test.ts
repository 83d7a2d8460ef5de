// db.transaction: every statement of fn runs in ONE transaction, from the first (the driver
// may pipeline BEGIN with it) to the last, and a throw undoes them all.
import { expect, test } from "bun:test";
import type { Queryable } from "../../src/db/driver.ts";
import { sharedDb } from "../support/harness.ts";

test("the first statement of a transaction already runs inside it, and all share one transaction", async () => {
  const db = await sharedDb();
  const ids = await db.transaction(async (tx) => {
    // Issued at once, as the group commit does: nothing may overtake BEGIN.
    const [first, second] = await Promise.all([
      tx.query<{ id: string }>("select txid_current()::text as id"),
      tx.query<{ id: string }>("select txid_current()::text as id"),
    ]);
    const third = await tx.query<{ id: string }>("select txid_current()::text as id");
    return [first[0]!.id, second[0]!.id, third[0]!.id];
  });
  expect(new Set(ids).size).toBe(1);
});

test("a throw rolls back every statement, the first one included", async () => {
  const db = await sharedDb();
  const name = `tx_probe_${crypto.randomUUID().replace(/-/g, "")}`;
  await db.exec(`create table ${name} (n int)`);
  try {
    const failed = db.transaction(async (tx) => {
      await tx.query(`insert into ${name} (n) values (1)`);
      await tx.query(`insert into ${name} (n) values (2)`);
      throw new Error("undo");
    });
    await expect(failed).rejects.toThrow("undo");
    expect(await db.query(`select n from ${name}`)).toEqual([]);
    await db.transaction(async (tx) => tx.query(`insert into ${name} (n) values (3)`));
    expect(await db.query<{ n: number }>(`select n from ${name}`)).toEqual([{ n: 3 }]);
  } finally {
    await db.exec(`drop table ${name}`);
  }
});

test("settings given to a transaction hold for its every statement, the first included, and end with it", async () => {
  const db = await sharedDb();
  const setting = (q: Queryable) =>
    q.query<{ mode: string; seqscan: string }>(`select current_setting('plan_cache_mode') as mode, current_setting('enable_seqscan') as seqscan`);
  const [defaults] = await setting(db);
  expect(defaults).not.toEqual({ mode: "force_generic_plan", seqscan: "off" });
  const inside = await db.transactionCommitBehind(async (tx) => {
    const first = setting(tx);
    return { last: Promise.all([first, setting(tx)]) };
  }, [["plan_cache_mode", "force_generic_plan"], ["enable_seqscan", "off"]]);
  expect(inside.map((rows) => rows[0])).toEqual([
    { mode: "force_generic_plan", seqscan: "off" },
    { mode: "force_generic_plan", seqscan: "off" },
  ]);
  // Local to the transaction: the next one on the same connections has the defaults.
  const after = await db.transactionCommitBehind(async (tx) => ({ last: setting(tx) }));
  expect(after[0]).toEqual(defaults);
  // Names and values go into BEGIN's text: anything but a plain word is refused before a byte is sent.
  await expect(db.transactionCommitBehind(async (tx) => ({ last: setting(tx) }), [["enable_seqscan", "off; drop table bots"]])).rejects.toThrow("not a plain setting");
});
