// Which plans the group commit's statements run on (PostgreSQL; PGlite from the writes on): the
// settings that keep one plan per statement for the rest of a transaction, and whether the
// look-ups' tables carry the statistics that make a kept plan of the look-ups safe
// (actors/lookup-plan-gate.ts).
import { setConfig, type Queryable, type TransactionSettings } from "./driver.ts";

/**
 * For the rest of the transaction, prepared statements run on the one plan kept per connection,
 * made without sequential scans. Sent behind the look-ups, before the twins' conversations by id,
 * the writes and the touch, whose every table access has a single index to use (a primary key,
 * or the conflict target of an insert), so that plan is the probe custom planning picks,
 * whatever the tables held when it was made. PostgreSQL otherwise planned the write and the
 * touch on every batch (kept, a parked poll waited 0.3 ms less and PostgreSQL spent 12 % less
 * CPU per message, docs/decisions.md round 8). Before the lock and the look-ups only once the
 * tables carry statistics (intakeTablesAnalyzed): several indexes lead with bot_id, and a plan
 * made on empty or unanalysed tables probes conversations by bot alone (round 5).
 * On PGlite too, whose statements are kept by text (pglite-statements.ts) and otherwise planned
 * on every run: its tables never carry statistics, so the look-ups never come under it there.
 */
export async function keepOnePlanPerStatement(db: Queryable): Promise<void> {
  // Parameters, so that postgres.js prepares it: a statement without any goes out as a simple
  // query, parsed and planned on every batch (0.11 ms of PostgreSQL time per transaction).
  await db.query(KEPT_PLANS_STATEMENT.text, KEPT_PLANS_STATEMENT.params);
}
/**
 * The same settings, for a transaction that keeps its plans from its first statement on
 * (Db.transactionCommitBehind sends them with BEGIN on PostgreSQL: no statement of their own).
 */
export const KEPT_PLANS: TransactionSettings = [["plan_cache_mode", "force_generic_plan"], ["enable_seqscan", "off"]];
const KEPT_PLANS_STATEMENT = setConfig(KEPT_PLANS);

/** How much of the look-ups' tables ANALYZE has seen, in each table (the least of the three counts). */
export interface AnalysedRows {
  /** Rows in all. */
  rows: number;
  /** Rows per bot: the table's rows over its distinct bot_ids, as the statistics estimate them. */
  rowsPerBot: number;
}

/**
 * Whether ANALYZE (autovacuum's, or anyone's) has seen at least `least.rows` rows in each of the
 * look-ups' tables, and at least `least.rowsPerBot` of them per bot. Then a plan made from the
 * statistics probes the unique (bot, key) indexes: a bot-only index is estimated to return a
 * bot's share of the rows, not one. At one row per bot the two tie, and the plan made probed
 * conversations by bot alone (1,000 bots with one chat each, PostgreSQL 15). A table never
 * analysed has -1 rows and no per-bot figure (its rows count for both).
 */
export async function intakeTablesAnalyzed(db: Queryable, least: AnalysedRows): Promise<boolean> {
  const rows = await db.query<{ ready: boolean | null }>(
    `select bool_and(c.reltuples >= $1::real and coalesce(c.reltuples / nullif(
       case when s.n_distinct >= 0 then s.n_distinct else -s.n_distinct * c.reltuples end, 0), c.reltuples) >= $2::real) as ready
     from pg_class c
     left join pg_stats s on s.schemaname = (select nspname from pg_namespace where oid = c.relnamespace)
       and s.tablename = c.relname and s.attname = 'bot_id' and not s.inherited
     where c.oid = any(array['conversations', 'contacts', 'messages']::regclass[])`,
    [least.rows, least.rowsPerBot],
  );
  return rows[0]?.ready === true;
}
