// The delivery log's writer: attempts are buffered and written in batches, so a busy worker
// adds one insert per batch rather than one per request. The log is for people looking at
// the cabinet, not for correctness: a crash may lose the last batch, never a delivery.
import type { Db } from "../db/driver.ts";
import type { Logger } from "../logger.ts";
import { insertAttempts, pruneAttempts, type NewAttempt } from "../db/webhooks.ts";

/** Why: a person opening the cabinet sees an attempt within a fraction of a second. */
export const ATTEMPT_FLUSH_MS = 200;
/** Why: one insert of this many rows stays small; a burst above it flushes at once. */
export const ATTEMPT_BATCH = 500;
/** Why: a week of history answers "what happened last week", older rows are noise. */
export const ATTEMPT_RETENTION_MS = 7 * 24 * 3600 * 1000;
/**
 * Why: a week of a busy bot (or of a receiver failing every retry) would be millions of rows;
 * the cabinet lists the latest 100, and this many is still hours of a flood's history.
 */
export const ATTEMPTS_KEPT_PER_BOT = 10_000;
/** Why: pruning once an hour keeps the table bounded without a delete per insert. */
export const ATTEMPT_PRUNE_INTERVAL_MS = 3600 * 1000;

export class AttemptRecorder {
  private buffer: NewAttempt[] = [];
  private flushing: Promise<void> = Promise.resolve();
  private readonly flushTimer: ReturnType<typeof setInterval>;
  private readonly pruneTimer: ReturnType<typeof setInterval>;

  constructor(
    private readonly db: Db,
    private readonly logger: Logger,
    /** Told of every attempt as it happens (the metrics' delivery counters). */
    private readonly onAttempt: (attempt: NewAttempt) => void = () => undefined,
  ) {
    this.flushTimer = setInterval(() => void this.flush(), ATTEMPT_FLUSH_MS);
    this.pruneTimer = setInterval(() => {
      pruneAttempts(db, new Date(Date.now() - ATTEMPT_RETENTION_MS), ATTEMPTS_KEPT_PER_BOT).catch((err) => logger.warn({ err }, "pruning the delivery log failed"));
    }, ATTEMPT_PRUNE_INTERVAL_MS);
  }

  add(attempt: NewAttempt): void {
    this.onAttempt(attempt);
    this.buffer.push(attempt);
    if (this.buffer.length >= ATTEMPT_BATCH) void this.flush();
  }

  /** Writes what is buffered; resolves when it is written (or failed and was logged). */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(async () => {
      const batch = this.buffer.splice(0);
      if (batch.length === 0) return;
      await insertAttempts(this.db, batch).catch((err) => this.logger.warn({ err, rows: batch.length }, "writing the delivery log failed"));
    });
    return this.flushing;
  }

  async close(): Promise<void> {
    clearInterval(this.flushTimer);
    clearInterval(this.pruneTimer);
    await this.flush();
  }
}
