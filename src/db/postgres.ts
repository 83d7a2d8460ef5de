import postgres from "postgres";
import { setLocal, type Db, type Queryable, type TransactionSettings } from "./driver.ts";

/** Connections per process: Postgres handles ~100 in total; several processes share them. */
const POOL_SIZE = 10;
/** Why: a DATABASE_URL that does not answer fails start-up, and a request during an outage answers 503, within this. */
const CONNECT_TIMEOUT_SECONDS = 3;
/** Why: /readyz must answer fast; `select 1` on a healthy server takes well under a millisecond. */
const PING_TIMEOUT_MS = 1000;
/**
 * Why: after a PostgreSQL restart postgres.js can keep a query queued on a reconnecting
 * connection for 20 s and more; a request answers 503 within this instead (p99 under
 * load is a few hundred ms, so only an outage reaches it).
 */
export const QUERY_DEADLINE_MS = 5000;

/** The database did not answer within QUERY_DEADLINE_MS: an outage (503), see errors.ts. */
export class DatabaseTimeout extends Error {
  readonly code = "DATABASE_TIMEOUT";
  constructor() {
    super(`the database did not answer within ${QUERY_DEADLINE_MS} ms`);
  }
}

/** Settles with `work`, or rejects after `ms` and calls `onLate` so the work can be called off. */
function withDeadline<T>(work: Promise<T>, ms: number, onLate: () => void): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      onLate();
      work.catch(() => undefined); // its own failure, if any, comes too late to matter
      reject(new DatabaseTimeout());
    }, ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

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

/** Pools to replace when one of their connections is found broken (see openPostgres). */
const openPools = new Set<() => void>();

let guardInstalled = false;
function guardClosedSocketWrites(): void {
  if (guardInstalled) return;
  guardInstalled = true;
  process.on("uncaughtException", (err) => {
    if (isClosedSocketWrite(err)) {
      // The connection that threw keeps a write scheduled forever: its pool is replaced.
      for (const replace of openPools) replace();
      return;
    }
    // Keep the default behaviour for everything else: report and exit.
    console.error(err);
    process.exit(1);
  });
}

/**
 * Why: after a PostgreSQL restart some postgres.js connections (on Bun) stay stuck
 * connecting or with queued queries for 10-60 s although the server is back (measured);
 * a query past its deadline replaces the whole pool, at most this often.
 */
const POOL_REPLACE_INTERVAL_MS = 2000;
/** Why: queries still running on a replaced pool get this long to finish before it is closed. */
const OLD_POOL_GRACE_SECONDS = 2;

export async function openPostgres(url: string): Promise<Db> {
  guardClosedSocketWrites();
  const connect = () => postgres(url, {
    max: POOL_SIZE,
    connect_timeout: CONNECT_TIMEOUT_SECONDS,
    onnotice: () => {},
    types: {
      bigint: { to: INT8_OID, from: [INT8_OID], serialize: (x: unknown) => String(x), parse: (x: string) => Number(x) },
    },
  });
  let sql = connect();
  let replacedAt = Date.now();
  let closed = false;
  const replacePool = () => {
    if (closed || Date.now() - replacedAt < POOL_REPLACE_INTERVAL_MS) return;
    replacedAt = Date.now();
    const old = sql;
    sql = connect();
    void old.end({ timeout: OLD_POOL_GRACE_SECONDS }).catch(() => undefined);
  };
  openPools.add(replacePool);
  // Inside a transaction the transaction's own deadline applies; once it has passed, the
  // remaining queries are refused so the work rolls back instead of committing unseen.
  const inTransaction = (tx: postgres.Sql, abandoned: () => boolean): Queryable => ({
    async query<T>(text: string, params: unknown[] = []) {
      if (abandoned()) throw new DatabaseTimeout();
      // Named prepared statements: each distinct query is parsed once per connection, not per call.
      // Sent now (execute) rather than when first awaited: statements go out in the order they
      // were issued, and a COMMIT issued after them cannot overtake them.
      return (await tx.unsafe(text, params as never[], { prepare: true }).execute()) as unknown as T[];
    },
    async exec(script: string) {
      if (abandoned()) throw new DatabaseTimeout();
      await tx.unsafe(script).simple();
    },
  });
  /**
   * One transaction on a reserved connection. BEGIN is sent, not awaited: the first statements
   * follow it in the same write, one round trip fewer (postgres.js's begin() waits for BEGIN's
   * answer). `commit` sends COMMIT unless the deadline has passed (then the work rolls back:
   * the caller has already been told it failed).
   */
  const inReservedTransaction = <T>(run: (tx: Queryable, commit: () => Promise<void>) => Promise<T>, settings: TransactionSettings = []): Promise<T> => {
    let abandoned = false;
    const work = (async () => {
      const begin = ["begin", ...setLocal(settings)].join("; ");
      const conn = await sql.reserve();
      try {
        if (abandoned) throw new DatabaseTimeout();
        // Without parameters postgres.js sends it as one simple query: BEGIN and its settings in one message.
        const began = conn.unsafe(begin).execute();
        const commit = async () => {
          if (abandoned) throw new DatabaseTimeout();
          await conn.unsafe("commit").execute();
        };
        const [, result] = await Promise.all([began, run(inTransaction(conn, () => abandoned), commit)]);
        return result;
      } catch (err) {
        // Also after a failed BEGIN or a broken connection: then it fails too, and the pool replaces it.
        await conn.unsafe("rollback").catch(() => undefined);
        throw err;
      } finally {
        conn.release();
      }
    })();
    return withDeadline(work, QUERY_DEADLINE_MS, () => {
      abandoned = true;
      replacePool();
    });
  };
  const db: Db = {
    kind: "postgres",
    async query<T>(text: string, params: unknown[] = []) {
      const q = sql.unsafe(text, params as never[], { prepare: true });
      return (await withDeadline(q, QUERY_DEADLINE_MS, () => {
        q.cancel();
        replacePool();
      })) as unknown as T[];
    },
    async exec(script: string) {
      // Migrations: no deadline, a long one is not an outage.
      await sql.unsafe(script).simple();
    },
    transaction(fn) {
      return inReservedTransaction(async (tx, commit) => {
        const result = await fn(tx);
        await commit();
        return result;
      });
    },
    transactionCommitBehind(fn, settings) {
      return inReservedTransaction(async (tx, commit) => {
        const { last } = await fn(tx);
        // Both settle before we answer; a failed statement turns COMMIT into a rollback.
        const [result] = await Promise.all([last, commit()]);
        return result;
      }, settings);
    },
    async ping() {
      const q = sql.unsafe("select 1");
      // No replacement here: under load a ping may wait its turn longer than this.
      return withDeadline(q, PING_TIMEOUT_MS, () => q.cancel()).then(() => true, () => false);
    },
    async close() {
      closed = true;
      openPools.delete(replacePool);
      await sql.end({ timeout: 5 });
    },
  };
  await sql.unsafe("select 1");
  return db;
}
