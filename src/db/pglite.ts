import { PGlite } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import { mkdirSync } from "node:fs";
import type { Db, Queryable } from "./driver.ts";
import { mappedFsBundle, releaseZeroPages } from "./pglite-memory.ts";

/**
 * Memory settings for one embedded user, passed at every start (they override the data
 * directory's postgresql.conf). Why: initdb sizes shared_buffers at 128 MB, and PGlite's
 * resident memory follows it (measured on a reopened data dir: 128 MB → 276 MB RSS,
 * 32 MB → 166, 16 MB → 147, 8 MB → 137); the embedded default serves one operator's traffic,
 * whose working set fits in 16 MB.
 */
const EMBEDDED_MEMORY_SETTINGS = [
  "shared_buffers=8MB",
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
  const startParams = [...PGlite.defaultStartParams, ...EMBEDDED_MEMORY_SETTINGS.flatMap((setting) => ["-c", setting])];
  const start = async () => {
    const opened = await PGlite.create({ dataDir, extensions: { pg_trgm }, startParams, fsBundle: mappedFsBundle() });
    // Why: a first start runs initdb in its own WASM instance (and a reopen leaves the old one);
    // collecting now returns its memory instead of leaving it to a GC an idle process never triggers.
    Bun.gc(true);
    releaseZeroPages(opened.Module.HEAPU8);
    return opened;
  };
  let pg = await start();
  const wrap = (runner: Pick<PGlite, "query" | "exec">): Queryable => ({
    async query<T>(text: string, params: unknown[] = []) {
      return (await runner.query<T>(text, params)).rows;
    },
    async exec(script: string) {
      await runner.exec(script);
    },
  });
  return {
    kind: "pglite",
    // Not ...wrap(pg): reopen replaces pg, and these must follow it.
    query: (text, params) => wrap(pg).query(text, params),
    exec: (script) => wrap(pg).exec(script),
    async transaction(fn) {
      return pg.transaction((tx) => fn(wrap(tx)));
    },
    async transactionCommitBehind(fn) {
      // One connection, one statement at a time: nothing to pipeline.
      return pg.transaction(async (tx) => (await fn(wrap(tx))).last);
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
    },
    async close() {
      if (!pg.closed) await pg.close();
    },
  };
}
