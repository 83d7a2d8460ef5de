// What the queued deliveries (channel_callbacks.ts, event_hooks.ts) share: one actor per bot
// whose lease this worker holds, reading the bot's pending rows from a table that keeps the
// retry schedule, sending each lane's head (a lane keeps its order: a conversation, or a hook
// and conversation) several lanes at a time, backing a failed head off, and giving the lease
// back when nothing is queued. A subclass says what a row is sent as and how its outcome is
// written down.
import { LeasedPump } from "./pump.ts";
import { backoffMs, postJson, type BackoffOptions, type Outcome } from "./http.ts";
import type { LeaseKeeper } from "./lease.ts";
import type { UrlPolicy } from "./ssrf.ts";
import type { Db } from "../db/driver.ts";

/** A queued row as the pump needs it: the table holds the retry schedule. */
export interface LaneRow {
  attempts: number;
  next_attempt_at: Date;
}

export interface LaneDeps {
  db: Db;
  policy: UrlPolicy;
  timeoutMs: number;
  backoff: BackoffOptions;
  now: () => number;
}

/** Which rows the pump reads, how it groups them, and how much it does at once. */
export interface LaneQueue<Row> {
  /** The bot's pending rows, in queue order (within a lane, the head first). */
  pending(db: Db, botId: string, limit: number): Promise<Row[]>;
  /** The rows that must go in order share a lane. */
  laneOf(row: Row): string;
  /** Lanes with a request on its way at once. */
  maxConnections: number;
  /** Rows read per pump. */
  batch: number;
  /** Nothing queued for this long: the lease goes back. */
  idleMs: number;
  /** Why the actor retires when idle (the worker's log). */
  idleReason: string;
}

/** A lane's head, ready to send. */
export interface LaneRequest {
  url: string;
  body: string;
}

export abstract class LanePump<Row extends LaneRow, Deps extends LaneDeps> extends LeasedPump<LanePump<Row, Deps>> {
  /** Lanes with a request on its way. */
  private readonly busy = new Set<string>();
  private idleTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    protected readonly deps: Deps,
    readonly botId: string,
    lease: LeaseKeeper,
    tell: (work: (actor: LanePump<Row, Deps>) => Promise<void> | void) => void,
    /** Asks the worker to stop this actor (idle). */
    private readonly finish: (reason: string) => void,
  ) {
    super(lease, tell);
  }

  /** Which rows, in which lanes, how many at once. */
  protected abstract readonly queue: LaneQueue<Row>;
  /** What the head is sent as, or why it is given up (`giveUp` is then called). */
  protected abstract prepare(row: Row, now: number): Promise<LaneRequest | string>;
  /** The request's headers (the lane counts as busy from here on). */
  protected abstract headers(row: Row, request: LaneRequest, timestamp: number): Record<string, string>;
  /** The head is given up unsent. */
  protected abstract giveUp(row: Row, reason: string): Promise<void>;
  /** The head is done: delivered, or refused for good. */
  protected abstract finished(row: Row, state: "delivered" | "failed", status: number | null, error: string | null): Promise<void>;
  /** The head failed and goes again at `at`. */
  protected abstract retryLater(row: Row, at: Date, status: number | null, error: string): Promise<void>;
  /** Told of every attempt while the lease holds, before its outcome is written. */
  protected attempted(_row: Row, _request: LaneRequest, _attemptedAt: Date, _outcome: Outcome): void {}

  onStart(): void {
    this.wake();
  }

  override async onStop(): Promise<void> {
    clearTimeout(this.idleTimer);
    await super.onStop();
  }

  wake(): void {
    this.schedulePump();
  }

  protected async pump(): Promise<void> {
    const rows = await this.queue.pending(this.deps.db, this.botId, this.queue.batch);
    const now = this.deps.now();
    const heads = new Map<string, Row>();
    for (const row of rows) {
      const lane = this.queue.laneOf(row);
      if (!heads.has(lane)) heads.set(lane, row);
    }
    let next = Infinity;
    for (const [lane, row] of heads) {
      if (this.busy.has(lane)) continue;
      const due = row.next_attempt_at.getTime();
      if (due > now) next = Math.min(next, due);
      else if (this.busy.size < this.queue.maxConnections) await this.start(lane, row, now);
    }
    this.pumpAt(next, now);
    clearTimeout(this.idleTimer);
    if (rows.length === 0 && this.busy.size === 0) {
      this.idleTimer = setTimeout(() => this.self((actor) => actor.retireIfIdle()), this.queue.idleMs);
    }
  }

  private async retireIfIdle(): Promise<void> {
    if (this.busy.size > 0 || (await this.queue.pending(this.deps.db, this.botId, 1)).length > 0) return this.wake();
    this.finish(this.queue.idleReason);
  }

  private async start(lane: string, row: Row, now: number): Promise<void> {
    const request = await this.prepare(row, now);
    if (typeof request === "string") {
      await this.giveUp(row, request);
      return this.schedulePump();
    }
    this.busy.add(lane);
    const headers = this.headers(row, request, Math.floor(now / 1000));
    const attemptedAt = new Date();
    void postJson(request.url, request.body, headers, { policy: this.deps.policy, timeoutMs: this.deps.timeoutMs, signal: this.lease.signal })
      .then((outcome) => this.self((actor) => actor.settle(lane, row, request, attemptedAt, outcome)));
  }

  private async settle(lane: string, row: Row, request: LaneRequest, attemptedAt: Date, outcome: Outcome): Promise<void> {
    this.busy.delete(lane);
    // A lost lease: another worker may be delivering now; record nothing, change nothing.
    if (this.stopped || !this.lease.valid()) return;
    this.attempted(row, request, attemptedAt, outcome);
    const status = outcome.status ?? null;
    if (outcome.ok) {
      await this.finished(row, "delivered", status, null);
    } else if (status === 410) {
      // The receiver refuses this row for good; whoever configured it may change that (or redeliver).
      await this.finished(row, "failed", status, outcome.error ?? "gone");
    } else {
      const wait = backoffMs(row.attempts + 1, this.deps.backoff, outcome.retryAfterMs);
      await this.retryLater(row, new Date(this.deps.now() + wait), status, outcome.error ?? "delivery failed");
    }
    this.schedulePump();
  }
}
