// The embedded driver keeps a statement per text (db/pglite-statements.ts), as postgres.js does
// on PostgreSQL: parsed once, run by name. What a caller notices must not change: the same rows
// and types back, errors with their SQLSTATE, transactions that still hold or roll back, and a
// backend that does not grow with every text it has seen.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Db } from "../../src/db/driver.ts";
import { openPglite } from "../../src/db/pglite.ts";
import { KEPT_STATEMENTS } from "../../src/db/pglite-statements.ts";

let db: Db;
beforeAll(async () => {
  db = await openPglite(undefined);
  await db.exec("create table kept_probe (id int primary key, label text, big int8, tags text[], doc jsonb, at timestamptz)");
});
afterAll(() => db.close());

const keptWith = async (fragment: string) =>
  (await db.query<{ n: number }>("select count(*)::int as n from pg_prepared_statements where statement like $1", [`%${fragment}%`]))[0]!.n;

test("a text run many times is parsed once and answers each run with its own parameters", async () => {
  for (let i = 1; i <= 5; i++) {
    await db.query("insert into kept_probe (id, label, big, tags, doc, at) values ($1, $2, $3, $4, $5::text::jsonb, $6)", [
      i, i % 2 ? null : `label ${i}`, 2 ** 40 + i, ["a", `t${i}`], JSON.stringify({ i }), new Date(Date.UTC(2026, 0, i)),
    ]);
  }
  const rows = await db.query<{ id: number; label: string | null; big: number; tags: string[]; doc: { i: number }; at: Date }>(
    "select id, label, big, tags, doc, at from kept_probe where id = any($1::int[]) order by id", [[2, 3]],
  );
  expect(rows).toEqual([
    { id: 2, label: "label 2", big: 2 ** 40 + 2, tags: ["a", "t2"], doc: { i: 2 }, at: new Date(Date.UTC(2026, 0, 2)) },
    { id: 3, label: null, big: 2 ** 40 + 3, tags: ["a", "t3"], doc: { i: 3 }, at: new Date(Date.UTC(2026, 0, 3)) },
  ]);
  expect(await keptWith("insert into kept_probe")).toBe(1);
  expect(await keptWith("from kept_probe where id = any")).toBe(1);
});

test("an error carries its SQLSTATE, and the next statement runs as if nothing happened", async () => {
  const duplicate = db.query("insert into kept_probe (id) values ($1)", [1]);
  await expect(duplicate).rejects.toMatchObject({ code: "23505" });
  const refused = db.query("select no_such_column from kept_probe");
  await expect(refused).rejects.toMatchObject({ code: "42703" });
  expect(await keptWith("no_such_column")).toBe(0);
  expect(await db.query<{ n: number }>("select count(*)::int as n from kept_probe where id = $1", [1])).toEqual([{ n: 1 }]);
});

test("a transaction's kept statements commit together, and a throw rolls them all back", async () => {
  await db.transaction(async (tx) => {
    await Promise.all([
      tx.query("insert into kept_probe (id, label) values ($1, $2)", [100, "one"]),
      tx.query("insert into kept_probe (id, label) values ($1, $2)", [101, "two"]),
    ]);
  });
  const failed = db.transaction(async (tx) => {
    await tx.query("insert into kept_probe (id, label) values ($1, $2)", [102, "three"]);
    await tx.query("insert into kept_probe (id, label) values ($1, $2)", [100, "again"]);
  });
  await expect(failed).rejects.toMatchObject({ code: "23505" });
  expect(await db.query<{ id: number }>("select id from kept_probe where id >= $1 order by id", [100])).toEqual([{ id: 100 }, { id: 101 }]);
});

test("a statement outside a transaction waits for an open one instead of running inside it", async () => {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const open = db.transaction(async (tx) => {
    await tx.query("insert into kept_probe (id, label) values ($1, $2)", [200, "inside"]);
    await held;
    throw new Error("undo");
  });
  await Bun.sleep(20);
  const outside = db.query("insert into kept_probe (id, label) values ($1, $2)", [201, "outside"]);
  await Bun.sleep(20);
  release();
  await expect(open).rejects.toThrow("undo");
  await outside;
  expect(await db.query<{ id: number }>("select id from kept_probe where id >= $1 order by id", [200])).toEqual([{ id: 201 }]);
});

test(`at most ${KEPT_STATEMENTS} texts are kept: the least recently used are closed`, async () => {
  for (let i = 0; i < KEPT_STATEMENTS + 50; i++) await db.query(`select $1::int + ${i} as n`, [1]);
  const kept = await db.query<{ n: number }>("select count(*)::int as n from pg_prepared_statements");
  expect(kept[0]!.n).toBeLessThanOrEqual(KEPT_STATEMENTS);
  expect(await keptWith("select $1::int + 0 as n")).toBe(0);
  expect(await keptWith(`select $1::int + ${KEPT_STATEMENTS + 49} as n`)).toBe(1);
  // A closed text is prepared again when it comes back.
  expect(await db.query("select $1::int + 0 as n", [41])).toEqual([{ n: 41 }]);
});

test("a table whose columns change under a kept `select *` answers with its new columns outside a transaction", async () => {
  await db.exec("create table kept_shape (id int primary key)");
  await db.query("insert into kept_shape (id) values ($1)", [1]);
  expect(await db.query("select * from kept_shape where id = $1", [1])).toEqual([{ id: 1 }]);
  await db.exec("alter table kept_shape add column note text default 'added'");
  expect(await db.query("select * from kept_shape where id = $1", [1])).toEqual([{ id: 1, note: "added" }]);
  expect(await keptWith("select * from kept_shape")).toBe(1);
});

test("a statement issued through a transaction that has ended is refused, not run outside it", async () => {
  let escaped: Parameters<Parameters<Db["transaction"]>[0]>[0] | undefined;
  await db.transaction(async (tx) => {
    escaped = tx;
    await tx.query("insert into kept_probe (id, label) values ($1, $2)", [300, "inside"]);
  });
  await expect(escaped!.query("insert into kept_probe (id, label) values ($1, $2)", [301, "late"])).rejects.toThrow("the transaction has ended");
  expect(await db.query<{ id: number }>("select id from kept_probe where id >= $1 and id < $2 order by id", [300, 400])).toEqual([{ id: 300 }]);
});
