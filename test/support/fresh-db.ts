// A database of a test's own, empty and unmigrated, for what the shared test database cannot
// show (its other tests' rows change statistics, an old schema cannot be replayed on it).
import type { Db } from "../../src/db/driver.ts";
import { openPglite } from "../../src/db/pglite.ts";
import { openPostgres } from "../../src/db/postgres.ts";
import { MODE } from "./harness.ts";

/** Opens it in the suite's mode (a throwaway PostgreSQL database, or PGlite in memory); `cleanups` gets what drops it. */
export async function freshDatabase(cleanups: Array<() => Promise<void>>, tag: string): Promise<Db> {
  if (MODE === "embedded") {
    const db = await openPglite(undefined);
    cleanups.push(() => db.close());
    return db;
  }
  const admin = await openPostgres(process.env.DATABASE_URL!);
  const name = `${tag}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  await admin.query(`create database ${name}`);
  const url = new URL(process.env.DATABASE_URL!);
  url.pathname = `/${name}`;
  const db = await openPostgres(url.href);
  cleanups.push(async () => {
    await db.close();
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.close();
  });
  return db;
}
