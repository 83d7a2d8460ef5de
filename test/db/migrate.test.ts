// Two processes may migrate at once (several `release` runs, or embedded starts racing);
// each migration must still be applied exactly once. Each test gets a fresh, empty
// database: an in-memory PGlite embedded, a throwaway Postgres database in production.
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { Db } from "../../src/db/driver.ts";
import { migrate, readMigrations } from "../../src/db/migrate.ts";
import { openPglite } from "../../src/db/pglite.ts";
import { openPostgres } from "../../src/db/postgres.ts";
import { MODE } from "../support/harness.ts";

/** Bun ignores bunfig's [test] timeout (5 s stays the default); a fresh PGlite takes seconds. */
const SLOW_MS = 60_000;
setDefaultTimeout(SLOW_MS);

interface FreshDatabase {
  /** Another connection (pool) to the same fresh database. */
  connect(): Promise<Db>;
  dispose(): Promise<void>;
}

const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
}, SLOW_MS);

async function freshDatabase(): Promise<FreshDatabase> {
  if (MODE === "embedded") {
    // PGlite is one connection per instance, so "two connections" are two users of it.
    const db = await openPglite(undefined);
    const fresh = { connect: async () => db, dispose: () => db.close() };
    cleanups.push(fresh.dispose);
    return fresh;
  }
  const adminUrl = process.env.DATABASE_URL!;
  const name = `migrate_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = await openPostgres(adminUrl);
  await admin.query(`create database ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const opened: Db[] = [];
  let disposed = false;
  const fresh: FreshDatabase = {
    async connect() {
      const db = await openPostgres(url.href);
      opened.push(db);
      return db;
    },
    async dispose() {
      if (disposed) return;
      disposed = true;
      await Promise.all(opened.map((db) => db.close()));
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.close();
    },
  };
  cleanups.push(fresh.dispose);
  return fresh;
}

/** One fresh database with every migration applied, shared by the tests that read the schema (freed with the rest). */
let schema: Promise<Db> | undefined;
function migratedSchema(): Promise<Db> {
  schema ??= (async () => {
    const db = await (await freshDatabase()).connect();
    await migrate(db);
    return db;
  })();
  return schema;
}

const recorded = async (db: Db) =>
  (await db.query<{ name: string }>(`select name from schema_migrations order by name`)).map((r) => r.name);

describe(`migrate (${MODE})`, () => {
  const all = readMigrations().map((m) => m.name);

  test("migration files are numbered, unique and in order", () => {
    expect(all.length).toBeGreaterThan(0);
    const numbers = all.map((name) => name.split("_")[0]);
    expect(new Set(numbers).size).toBe(numbers.length);
    expect([...all].sort()).toEqual(all);
  });

  test("two concurrent runs on a fresh database apply each migration exactly once", async () => {
    const fresh = await freshDatabase();
    const [a, b] = [await fresh.connect(), await fresh.connect()];
    const [appliedByA, appliedByB] = await Promise.all([migrate(a), migrate(b)]);

    expect([...appliedByA, ...appliedByB].sort()).toEqual(all);
    expect(appliedByA.filter((name) => appliedByB.includes(name))).toEqual([]);
    expect(await recorded(a)).toEqual(all);

    // The schema really is there: the first migration's tables answer.
    expect(await a.query(`select count(*)::int as n from users`)).toEqual([{ n: 0 }]);

    expect(await migrate(b)).toEqual([]);
    expect(await migrate(a)).toEqual([]);
    expect(await recorded(b)).toEqual(all);
    await fresh.dispose();
  }, SLOW_MS);

  test("a failing migration leaves no record, so it runs again next time", async () => {
    const fresh = await freshDatabase();
    const db = await fresh.connect();
    const good = { name: "001_good.sql", sql: "create table good_one (id int primary key);" };
    const bad = { name: "002_bad.sql", sql: "create table half_done (id int); select no_such_function();" };

    await expect(migrate(db, [good, bad])).rejects.toThrow();
    expect(await recorded(db)).toEqual(["001_good.sql"]);
    // The failed file's own statements were rolled back with its record.
    expect(await db.query(`select to_regclass('half_done') as t`)).toEqual([{ t: null }]);

    const fixed = { name: "002_bad.sql", sql: "create table half_done (id int);" };
    expect(await migrate(db, [good, fixed])).toEqual(["002_bad.sql"]);
    expect(await recorded(db)).toEqual(["001_good.sql", "002_bad.sql"]);
    await fresh.dispose();
  }, SLOW_MS);

  test("every GIN index keeps a short pending list, one added later too (sql/270: a 4 MB merge inside an insert stalled its whole batch)", async () => {
    const db = await migratedSchema();
    const gin = await db.query<{ name: string; options: string[] | null }>(
      `select c.relname as name, c.reloptions as options from pg_class c join pg_am a on a.oid = c.relam
       where a.amname = 'gin' and c.relnamespace = 'public'::regnamespace order by 1`,
    );
    expect(gin.map((index) => index.name)).toContain("messages_text_trgm");
    expect(gin.filter((index) => !index.options?.includes(`gin_pending_list_limit=${GIN_PENDING_LIST_KB}`)).map((index) => index.name)).toEqual([]);
  }, SLOW_MS);

  test("no index repeats another's leading columns (each costs every insert; sql/271)", async () => {
    const db = await migratedSchema();
    // Same table, method and predicate, and its columns the other's first ones. Sort direction
    // is not compared: a btree read backwards serves the other order after equal leading keys.
    const repeated = await db.query<{ repeated: string; covered_by: string }>(
      `select xc.relname as repeated, yc.relname as covered_by
       from pg_index x join pg_index y on x.indrelid = y.indrelid and x.indexrelid <> y.indexrelid
       join pg_class xc on xc.oid = x.indexrelid join pg_class yc on yc.oid = y.indexrelid
       cross join lateral (select string_to_array(x.indkey::text, ' ') as xk, string_to_array(y.indkey::text, ' ') as yk) k
       where xc.relam = yc.relam and xc.relnamespace = 'public'::regnamespace
         and not x.indisunique and x.indexprs is null and y.indexprs is null
         and pg_get_expr(x.indpred, x.indrelid) is not distinct from pg_get_expr(y.indpred, y.indrelid)
         and k.yk[1:cardinality(k.xk)] = k.xk
         and (cardinality(k.xk) < cardinality(k.yk) or y.indisunique or x.indexrelid > y.indexrelid)`,
    );
    expect(repeated).toEqual([]);
  }, SLOW_MS);
});

/** sql/270's limit, in kB. */
const GIN_PENDING_LIST_KB = 512;
