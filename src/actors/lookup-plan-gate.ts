// Whether the intake's look-ups may run on plans kept per connection (PostgreSQL): only once
// the tables' statistics make the unique (bot, key) probes the plan's obvious choice. Their
// custom planning was the largest server-side cost of a shared transaction left (0.34–0.37 ms
// of 0.43, docs/decisions.md round 8), but a plan made on empty tables and kept would probe
// conversations by bot alone and read every conversation of the bot on every batch.
import type { Db } from "../db/driver.ts";
import { intakeTablesAnalyzed, type AnalysedRows } from "../db/intake-plans.ts";

/**
 * Why: with few rows analysed, or about one per bot, a bot-only index is estimated at one row
 * like the unique probe, and the plan kept may be the bot-only one (a fresh database's plan fell
 * into that tie; so did 1,000 bots with one chat each). A thousand rows, ten per bot, break it:
 * a bot-only probe is then estimated at ten rows against the unique probe's one.
 */
export const KEPT_LOOKUP_PLAN_STATISTICS: AnalysedRows = { rows: 1_000, rowsPerBot: 10 };

/** Why: statistics change slowly (autovacuum analyses after a tenth of a table has changed); a look every half minute follows them at the cost of one tiny query. */
const STATISTICS_CHECK_MS = 30_000;

export class LookupPlanGate {
  private ready = false;
  private checkedAt: number | undefined;
  private checking: Promise<void> | undefined;

  constructor(private readonly db: Db, private readonly least = KEPT_LOOKUP_PLAN_STATISTICS) {}

  /** The first call waits for the first look (one query per process); later calls never wait, a stale answer is refreshed behind them. */
  async allowed(): Promise<boolean> {
    if (this.db.kind !== "postgres") return false;
    const stale = this.checkedAt === undefined || Date.now() - this.checkedAt >= STATISTICS_CHECK_MS;
    if (stale) this.checking ??= this.refresh();
    if (this.checkedAt === undefined) await this.checking;
    return this.ready;
  }

  private async refresh(): Promise<void> {
    try {
      this.ready = await intakeTablesAnalyzed(this.db, this.least);
    } catch {
      // The last answer stands; an outage fails the transaction itself anyway.
    } finally {
      this.checkedAt = Date.now();
      this.checking = undefined;
    }
  }
}
