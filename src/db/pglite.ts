import { PGlite } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import { mkdirSync } from "node:fs";
import type { Db, Queryable } from "./driver.ts";

/** Opens the embedded database; `dataDir` undefined keeps it in memory (tests). */
export async function openPglite(dataDir: string | undefined): Promise<Db> {
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  const pg = await PGlite.create({ dataDir, extensions: { pg_trgm } });
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
    ...wrap(pg),
    async transaction(fn) {
      return pg.transaction((tx) => fn(wrap(tx)));
    },
    async ping() {
      return !pg.closed;
    },
    async close() {
      if (!pg.closed) await pg.close();
    },
  };
}
