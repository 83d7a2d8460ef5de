// db.transaction: every statement of fn runs in ONE transaction, from the first (the driver
// may pipeline BEGIN with it) to the last, and a throw undoes them all.
import { expect, test } from "bun:test";
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
