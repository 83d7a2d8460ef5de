// A transaction's statements, run in the order they were issued on either driver.
import type { Db } from "../db/driver.ts";

type Results<T extends readonly (() => Promise<unknown>)[]> = { [K in keyof T]: Awaited<ReturnType<T[K]>> };

/**
 * Runs a transaction's statements in order. On PostgreSQL they are sent back to back on the
 * transaction's connection (one round trip for all); PGlite runs one statement at a time anyway.
 */
export async function inOrder<const T extends readonly (() => Promise<unknown>)[]>(db: Pick<Db, "kind">, steps: T): Promise<Results<T>> {
  if (db.kind === "postgres") return (await Promise.all(steps.map((step) => step()))) as Results<T>;
  const results: unknown[] = [];
  for (const step of steps) results.push(await step());
  return results as Results<T>;
}
