import { PGlite } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import { mkdirSync } from "node:fs";
import { setConfig, type Db, type Queryable } from "./driver.ts";
import { mappedFsBundle, releaseZeroPages } from "./pglite-memory.ts";
import { KeptStatements, PLAN_EVERY_RUN } from "./pglite-statements.ts";

/**
 * Memory settings for one embedded user, passed at every start (they override the data
 * directory's postgresql.conf). Why shared_buffers is 64 MB: since the zero pages of PGlite's
 * heap are handed back at start (pglite-memory.ts), idle RSS no longer follows it (median of
 * five starts: 8 MB 139, 32 MB 140, 64 MB 136–140 MB); under load a buffer pool of 8 MB kept
 * writing out and reading back pages on the one thread everything runs on, and 64 MB cut the
 * main thread's CPU per ingested message by 13–19 % (0.456–0.471 → 0.373–0.404 ms; RSS after the
 * load 210 → 270 MB; 128 MB gained nothing more). The rest stays small: one operator's traffic.
 */
const EMBEDDED_MEMORY_SETTINGS = [
  "shared_buffers=64MB",
  "temp_buffers=1MB",
  "work_mem=2MB",
  "maintenance_work_mem=16MB",
  "wal_buffers=1MB",
  "max_connections=4",
  "autovacuum_worker_slots=1",
];

/** Creates a data directory from a snapshot (Db.snapshot) and closes it: `npm run restore`. */
export async function restorePglite(dataDir: string, snapshot: Blob): Promise<void> {
  mkdirSync(dataDir, { recursive: true });
  const pg = await PGlite.create({ dataDir, extensions: { pg_trgm }, loadDataDir: snapshot });
  await pg.query("select 1");
  await pg.close();
}

/** Opens the embedded database; `dataDir` undefined keeps it in memory (tests). */
export async function openPglite(dataDir: string | undefined): Promise<Db> {
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  const startParams = [...PGlite.defaultStartParams, ...[...EMBEDDED_MEMORY_SETTINGS, PLAN_EVERY_RUN].flatMap((setting) => ["-c", setting])];
  const start = async () => {
    const opened = await PGlite.create({ dataDir, extensions: { pg_trgm }, startParams, fsBundle: mappedFsBundle() });
    // Why: a first start runs initdb in its own WASM instance (and a reopen leaves the old one);
    // collecting now returns its memory instead of leaving it to a GC an idle process never triggers.
    Bun.gc(true);
    releaseZeroPages(opened.Module.HEAPU8);
    return opened;
  };
  let pg = await start();
  let statements = new KeptStatements(pg);
  /** fn's statements on kept statements, refused once the transaction has ended (as tx.query refuses them). */
  const inTransaction = async <T>(tx: Pick<PGlite, "exec" | "closed">, fn: (tx: Queryable) => Promise<T>): Promise<T> => {
    let ended = false;
    const open = () => {
      if (ended || tx.closed) throw new Error("the transaction has ended");
    };
    try {
      return await fn({
        query: (text, params = []) => statements.inTransaction(text, params, open),
        async exec(script: string) {
          open();
          await tx.exec(script);
        },
      });
    } finally {
      ended = true;
    }
  };
  return {
    kind: "pglite",
    // statements, not a captured instance: reopen replaces it.
    query: (text, params = []) => statements.alone(text, params),
    async exec(script) {
      await pg.exec(script);
    },
    async transaction(fn) {
      return pg.transaction((tx) => inTransaction(tx, fn));
    },
    async transactionCommitBehind(fn, settings = []) {
      // One connection, one statement at a time: nothing to pipeline. The settings as one kept
      // statement (a simple query's SETs would be parsed on every transaction), refused as on PostgreSQL.
      const configured = setConfig(settings);
      return pg.transaction((tx) => inTransaction(tx, async (kept) => {
        if (settings.length) await kept.query(configured.text, configured.params);
        return (await fn(kept)).last;
      }));
    },
    async ping() {
      return !pg.closed;
    },
    async snapshot() {
      // A checkpoint first, so the tarball needs little WAL replay when it is restored.
      await pg.exec("checkpoint");
      return pg.dumpDataDir("gzip");
    },
    async reopen() {
      if (!dataDir) return;
      await pg.close();
      pg = await start();
      statements = new KeptStatements(pg);
    },
    async close() {
      if (!pg.closed) await pg.close();
    },
  };
}
