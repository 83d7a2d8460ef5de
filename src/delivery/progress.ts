// How far a webhook actor has got with a bot's update log, made durable so that the next
// holder of the bot's lease repeats as little as possible.
//
// Two records, both coalesced into one write per short window:
// - the log's confirm: everything below the lowest update still undelivered. It forgets all
//   below its argument, so it can never pass an update still undelivered (a chat stuck
//   failing holds it back for up to a day while every other chat is delivered beyond it);
// - webhook_delivered: the update_ids delivered beyond that watermark. A new holder reads
//   them and skips those updates, so a takeover resends what was in flight (and what was
//   delivered in the last window, not yet written), not the backlog past a stuck chat.
// The rows are written before the confirm that makes them unnecessary, and deleted once a
// confirm has passed them: a crash between the two leaves only garbage below the watermark,
// which the next confirm's write removes.
import type { Db } from "../db/driver.ts";
import type { Logger } from "../logger.ts";
import type { LogUpdate, UpdateLog } from "../updates/log.ts";
import { findDeliveredRange, listDelivered, recordDelivered } from "../db/webhooks.ts";

/** Why: a failed write only risks repeats after a takeover; trying again soon keeps pending_update_count honest. */
export const PROGRESS_RETRY_MS = 1000;
/** Why: one write covers the deliveries of this window instead of one each; a kill -9 repeats at most that much beyond the requests in flight. */
export const PROGRESS_DELAY_MS = 50;

export interface ProgressDeps {
  db: Db;
  log: UpdateLog;
  logger: Logger;
}

export class DeliveryProgress {
  private wantedBelow = 0;
  private confirmedBelow = 0;
  /** Delivered beyond the prefix and not yet written. */
  private unrecorded: number[] = [];
  /** The span of webhook_delivered rows this bot may have (ours and earlier holders'); empty when lowest > highest. */
  private stored = { lowest: Infinity, highest: -Infinity };
  /** Rows up to here were written by earlier holders: reads at or below it look them up. */
  private inheritedUpTo = -Infinity;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private run: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly deps: ProgressDeps,
    private readonly botId: string,
  ) {}

  /** Before the first read: what earlier holders recorded. */
  async load(): Promise<void> {
    const range = await findDeliveredRange(this.deps.db, this.botId);
    if (range.lowest === null || range.highest === null) return;
    this.stored = { lowest: range.lowest, highest: range.highest };
    this.inheritedUpTo = range.highest;
  }

  /** The update_ids of a read batch (ascending) that an earlier holder already delivered. */
  async deliveredEarlier(batch: LogUpdate[]): Promise<Set<number>> {
    const first = batch[0]?.update_id;
    if (first === undefined || first > this.inheritedUpTo) return new Set();
    const last = Math.min(batch[batch.length - 1]!.update_id, this.inheritedUpTo);
    return new Set(await listDelivered(this.deps.db, this.botId, first, last));
  }

  /**
   * `id` is done (delivered, or skipped as expired or unwanted), and every update below
   * `lowestUndelivered` is done: both are written after a short delay.
   */
  delivered(id: number | undefined, lowestUndelivered: number): void {
    if (id !== undefined && id >= lowestUndelivered) this.unrecorded.push(id);
    this.wantedBelow = Math.max(this.wantedBelow, lowestUndelivered);
    this.schedule(PROGRESS_DELAY_MS);
  }

  /** Stops the timers; `flush`: writes what is pending first (not after a crash). */
  async close(flush: boolean): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    if (flush) await this.flush();
    else await this.run;
  }

  private schedule(delayMs: number): void {
    if (this.timer || this.closed) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, delayMs);
  }

  /** Writes what is pending now; writes run one at a time. Safe after the lease is lost: it only records what we delivered. */
  private flush(): Promise<void> {
    this.run = this.run.then(async () => {
      let failed = false;
      const target = this.wantedBelow;
      // Below the target the confirm covers them; rows already confirmed past go in the same write.
      const ids = this.unrecorded.filter((id) => id >= target);
      this.unrecorded = [];
      const pruneBelow = this.stored.lowest < this.confirmedBelow ? this.confirmedBelow : 0;
      if (ids.length > 0 || pruneBelow > 0) {
        try {
          await recordDelivered(this.deps.db, this.botId, ids, pruneBelow);
          if (pruneBelow > 0) this.forgetBelow(pruneBelow);
          for (const id of ids) this.stored = { lowest: Math.min(this.stored.lowest, id), highest: Math.max(this.stored.highest, id) };
        } catch (err) {
          failed = true;
          this.unrecorded.push(...ids);
          this.deps.logger.warn({ err, bot: this.botId }, "recording delivered updates failed");
        }
      }
      if (target > this.confirmedBelow) {
        try {
          await this.deps.log.confirm(this.botId, target);
          this.confirmedBelow = target;
        } catch (err) {
          failed = true;
          this.deps.logger.warn({ err, bot: this.botId }, "confirming delivered updates failed");
        }
      }
      if (failed) this.schedule(PROGRESS_RETRY_MS);
      // Rows the confirm just passed: delete them soon (with the next deliveries, if any come).
      else if (this.unrecorded.length > 0 || this.wantedBelow > this.confirmedBelow || this.stored.lowest < this.confirmedBelow) {
        this.schedule(PROGRESS_DELAY_MS);
      }
    });
    return this.run;
  }

  private forgetBelow(below: number): void {
    this.stored = this.stored.highest < below ? { lowest: Infinity, highest: -Infinity } : { lowest: below, highest: this.stored.highest };
  }
}
