// Counts read when /metrics is scraped (src/metrics.ts); each one a single aggregate query.
import type { Queryable } from "./driver.ts";

export async function countOutbox(db: Queryable): Promise<number> {
  const [row] = await db.query<{ n: string | number }>(`select count(*) as n from outbox`);
  return Number(row?.n ?? 0);
}

/** Unconfirmed rows of the table-backed update log (the embedded default); expired ones are swept. */
export async function countPendingLogUpdates(db: Queryable): Promise<number> {
  const [row] = await db.query<{ n: string | number }>(
    `select count(*) as n from update_log l left join update_log_confirmed c using (bot_id) where l.update_id >= coalesce(c.below, 0)`,
  );
  return Number(row?.n ?? 0);
}
