import postgres from "postgres";
import type { Db, Queryable } from "./driver.ts";

/** Connections per process: Postgres handles ~100 in total; several processes share them. */
const POOL_SIZE = 10;
/** Why: a DATABASE_URL that does not answer fails start-up, and a request during an outage answers 503, within this. */
const CONNECT_TIMEOUT_SECONDS = 3;
/** Why: /readyz must answer fast; `select 1` on a healthy server takes well under a millisecond. */
const PING_TIMEOUT_MS = 1000;

const INT8_OID = 20;

/**
 * postgres.js 3.4.9 (the latest) can write to a connection's socket from a setImmediate
 * after the server closed it (porsager/postgres#1066, #1154, #1208; the guard PRs are not
 * merged). The TypeError escapes every await and would kill the process on any PostgreSQL
 * restart. By then the connection has already failed its queries with CONNECTION_CLOSED,
 * so the write is moot: exactly that error is swallowed, anything else still crashes.
 */
function isClosedSocketWrite(err: unknown): boolean {
  const e = err as Error | undefined;
  return e instanceof TypeError && /socket\.write|reading 'write'/.test(e.message) && /postgres[\\/](cjs[\\/])?src[\\/]connection\.js/.test(e.stack ?? "");
}

let guardInstalled = false;
function guardClosedSocketWrites(): void {
  if (guardInstalled) return;
  guardInstalled = true;
  process.on("uncaughtException", (err) => {
    if (isClosedSocketWrite(err)) return;
    // Keep the default behaviour for everything else: report and exit.
    console.error(err);
    process.exit(1);
  });
}

export async function openPostgres(url: string): Promise<Db> {
  guardClosedSocketWrites();
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
      const timedOut = Bun.sleep(PING_TIMEOUT_MS).then(() => false);
      return Promise.race([sql.unsafe("select 1").then(() => true, () => false), timedOut]);
    },
    async close() {
      await sql.end({ timeout: 5 });
    },
  };
  await sql.unsafe("select 1");
  return db;
}
