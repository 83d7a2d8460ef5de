import postgres from "postgres";
import type { Db, Queryable } from "./driver.ts";

/** Connections per process: Postgres handles ~100 in total; several processes share them. */
const POOL_SIZE = 10;
/** A DATABASE_URL that does not answer must fail start-up, not hang it. */
const CONNECT_TIMEOUT_SECONDS = 5;

const INT8_OID = 20;

export async function openPostgres(url: string): Promise<Db> {
  const sql = postgres(url, {
    max: POOL_SIZE,
    connect_timeout: CONNECT_TIMEOUT_SECONDS,
    onnotice: () => {},
    types: {
      bigint: { to: INT8_OID, from: [INT8_OID], serialize: (x: unknown) => String(x), parse: (x: string) => Number(x) },
    },
  });
  const wrap = (runner: { unsafe: typeof sql.unsafe }): Queryable => ({
    async query<T>(text: string, params: unknown[] = []) {
      // Named prepared statements: each distinct query is parsed once per connection, not per call.
      return (await runner.unsafe(text, params as never[], { prepare: true })) as unknown as T[];
    },
    async exec(script: string) {
      await runner.unsafe(script).simple();
    },
  });
  const db: Db = {
    kind: "postgres",
    ...wrap(sql),
    async transaction(fn) {
      return (await sql.begin((tx) => fn(wrap(tx as unknown as typeof sql)))) as never;
    },
    async ping() {
      try {
        await sql.unsafe("select 1");
        return true;
      } catch {
        return false;
      }
    },
    async close() {
      await sql.end({ timeout: 5 });
    },
  };
  await sql.unsafe("select 1");
  return db;
}
