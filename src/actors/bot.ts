// BotActor: one per bot per process. Parks long-poll get-updates requests and wakes them
// when the bot's update log grows (1 ms batching, as the reference server), keeps one
// poller per bot (a newer poll, here or in another process, ends the older with 409),
// and rate-limits what the bot sends.
//
// Waiting happens outside the mailbox: a poll message registers the wait and returns at
// once, so a parked poll never blocks the bot's other messages.
import { randomUUID } from "node:crypto";
import type { EventBus, Unsubscribe } from "../bus/bus.ts";
import { conflict, rateLimited, unauthorized } from "../core/errors.ts";
import type { LogUpdate, UpdateLog } from "../updates/log.ts";
import { pollSubject, wakeSubject, type Wake } from "../core/subjects.ts";

/** Wake-ups arriving within this window are served by one read (the reference server batches 1 ms). */
export const WAKE_BATCH_MS = 1;
/**
 * Why: a polling bot asks again within milliseconds of an answer; keeping its wake
 * subscription this long after a poll ends spares the next poll a subscribe and a flush
 * (a broker round trip), while a bot that stopped polling costs nothing soon after.
 */
export const WAKE_LINGER_MS = 5_000;

const TERMINATED_BY_OTHER_POLL = "terminated by other get-updates request";

/**
 * Why: parked polls need no cap (a newer poll ends the older one, here or in another
 * process, so each process parks at most one per bot), but polls still queued in the bot's
 * mailbox, each only to end the one before it with 409, would crowd out the bot's sends.
 * A client polls once at a time; a few more cover a restart's overlap.
 */
export const MAX_QUEUED_POLLS_PER_BOT = 8;
/** Why: a queued poll leaves the mailbox within milliseconds; a second is plenty to wait. */
export const QUEUED_POLLS_RETRY_AFTER_SECONDS = 1;

const queuedPolls = new WeakMap<BotActorDeps, Map<string, number>>();
/** Bots with a poll parked in this process, per platform (its BotActorDeps). */
const parkedPolls = new WeakMap<BotActorDeps, Set<string>>();

/**
 * Whether one of this bot's polls is parked in this process right now. Read outside the
 * actor (a batch just committed asks it synchronously), written only by the actor itself.
 */
export function pollParkedHere(deps: BotActorDeps, botId: string): boolean {
  return parkedPolls.get(deps)?.has(botId) ?? false;
}

/**
 * Runs `enqueue` (a poll's trip through the bot's mailbox, until it is parked or answered)
 * unless MAX_QUEUED_POLLS_PER_BOT of this bot's polls are already on that trip: then 429.
 */
export async function admitPoll<T>(deps: BotActorDeps, botId: string, enqueue: () => Promise<T>): Promise<T> {
  let counts = queuedPolls.get(deps);
  if (!counts) queuedPolls.set(deps, (counts = new Map()));
  const queued = counts.get(botId) ?? 0;
  if (queued >= MAX_QUEUED_POLLS_PER_BOT) throw rateLimited(QUEUED_POLLS_RETRY_AFTER_SECONDS);
  counts.set(botId, queued + 1);
  try {
    return await enqueue();
  } finally {
    const left = (counts.get(botId) ?? 1) - 1;
    if (left > 0) counts.set(botId, left);
    else counts.delete(botId);
  }
}

export interface PollRequest {
  offset: number;
  limit: number;
  timeoutMs: number;
}

interface ParkedPoll {
  id: string;
  fromUpdateId: number;
  limit: number;
  resolve(updates: LogUpdate[]): void;
  reject(err: unknown): void;
  timer: ReturnType<typeof setTimeout>;
}

export interface BotActorDeps {
  log: UpdateLog;
  bus: EventBus;
  /** Distinguishes this process's polls from other processes' on the bus. */
  instanceId: string;
  rateLimits: boolean;
  /** Sends per second per bot; a burst of one second's worth is allowed. */
  sendPerSecond: number;
  /** Polls end early (empty) when the process drains. */
  stopping: AbortSignal;
  now?: () => number;
}

export class BotActor {
  private parked: ParkedPoll | undefined;
  private subscriptions: Unsubscribe[] = [];
  private lingerTimer: ReturnType<typeof setTimeout> | undefined;
  private wakeScheduled = false;
  private tokens: number;
  private tokensAt: number;
  private readonly now: () => number;

  constructor(
    private readonly deps: BotActorDeps,
    readonly botId: string,
    /** Re-enters this actor's mailbox (reads after a wake-up are serialised like everything else). */
    private readonly self: (work: (actor: BotActor) => Promise<void>) => void,
  ) {
    this.now = deps.now ?? Date.now;
    this.tokensAt = this.now();
    this.tokens = deps.sendPerSecond;
  }

  /**
   * Confirms below `offset` (or, negative, keeps the last |offset|), then answers at once
   * when updates are there or timeout is 0; otherwise returns a wait that ends on the next
   * update, at the timeout, or with 409 when a newer poll takes over.
   */
  async poll(request: PollRequest): Promise<{ wait: Promise<LogUpdate[]> }> {
    this.terminateParked();
    const { log } = this.deps;
    let fromUpdateId = 0;
    if (request.offset < 0) {
      const tail = await log.tail(this.botId, -request.offset);
      if (tail[0]) await log.confirm(this.botId, tail[0].update_id);
      fromUpdateId = tail[0]?.update_id ?? 0;
    } else if (request.offset > 0) {
      await log.confirm(this.botId, request.offset);
      fromUpdateId = request.offset;
    }
    if (request.timeoutMs > 0 && !this.deps.stopping.aborted) {
      // Listen before reading, so an update appended between the read and the park still wakes us.
      await this.listen();
    }
    const ready = await log.read(this.botId, fromUpdateId, request.limit);
    if (ready.length > 0 || request.timeoutMs <= 0 || this.deps.stopping.aborted) {
      this.quietIfIdle();
      return { wait: Promise.resolve(ready) };
    }
    const id = randomUUID();
    const wait = new Promise<LogUpdate[]>((resolve, reject) => {
      const timer = setTimeout(() => this.finish(id, []), request.timeoutMs);
      this.parked = { id, fromUpdateId, limit: request.limit, resolve, reject, timer };
    });
    let parked = parkedPolls.get(this.deps);
    if (!parked) parkedPolls.set(this.deps, (parked = new Set()));
    parked.add(this.botId);
    this.deps.bus.publish(pollSubject(this.botId), { instance: this.deps.instanceId, poll: id }).catch(() => {});
    // Wrapped: a bare promise would be adopted by ask(), holding the mailbox for the whole wait.
    return { wait };
  }

  /** Takes one send token or answers 429 with how long until the next one. */
  takeSendToken(): void {
    if (!this.deps.rateLimits) return;
    const now = this.now();
    const rate = this.deps.sendPerSecond;
    this.tokens = Math.min(rate, this.tokens + ((now - this.tokensAt) / 1000) * rate);
    this.tokensAt = now;
    if (this.tokens < 1) throw rateLimited(Math.max(1, Math.ceil((1 - this.tokens) / rate)));
    this.tokens -= 1;
  }

  /** A webhook was set: the parked poll ends with 409 like a newer poll would end it. */
  endPollForWebhook(): void {
    const parked = this.parked;
    if (!parked) return;
    this.clearParked();
    parked.reject(conflict("can't use get-updates while a webhook is active; use delete-webhook first", "webhook_active"));
  }

  /** The bot token was rotated: the poll made with the old one ends with 401, delivering nothing. */
  endPollForRevokedToken(): void {
    const parked = this.parked;
    if (!parked) return;
    this.clearParked();
    parked.reject(unauthorized("the bot token was rotated; use the new one"));
  }

  onStop(): void {
    if (this.parked) this.finish(this.parked.id, []);
    this.unsubscribe();
  }

  private async listen(): Promise<void> {
    clearTimeout(this.lingerTimer);
    this.lingerTimer = undefined;
    if (this.subscriptions.length > 0) return;
    const { bus, instanceId, stopping } = this.deps;
    this.subscriptions.push(
      bus.subscribe(wakeSubject(this.botId), (data) => this.self(async (actor) => actor.onWake(data as Wake))),
      bus.subscribe(pollSubject(this.botId), (data) => {
        const other = data as { instance?: string; poll?: string; revoked?: boolean };
        if (other.revoked) this.self(async (actor) => actor.endPollForRevokedToken());
        else if (other.instance !== instanceId) this.self(async (actor) => actor.terminateParked());
      }),
    );
    const onStopping = () => this.self(async (actor) => actor.onStop());
    stopping.addEventListener("abort", onStopping, { once: true });
    this.subscriptions.push(() => stopping.removeEventListener("abort", onStopping));
    await bus.flush();
  }

  /**
   * A batch this process just committed (durable in the outbox, not yet in the log): answers
   * a poll parked here without waiting for the log append and the wake-up's trip through the
   * broker. Only under the log's own gap rule (outbox/ordered-log.ts): the batch must hold the
   * very next id the poll waits for and nothing after a gap, so no id is skipped; otherwise the
   * wake-up that follows the append serves the poll as before.
   */
  offerCommitted(updates: LogUpdate[]): void {
    const parked = this.parked;
    if (!parked) return;
    const ready = this.readyFrom(parked, updates);
    if (ready.length > 0) this.finish(parked.id, ready);
  }

  /** Answers the parked poll straight from the wake-up when it carries exactly what the poll waits for. */
  private onWake(wake: Wake): void {
    const parked = this.parked;
    if (!parked) return;
    const ready = this.readyFrom(parked, wake.updates ?? []);
    if (ready.length > 0) return this.finish(parked.id, ready);
    // Everything this wake-up announces is below what the poll waits for (it was answered
    // already, from the committed batch): a read would find nothing new.
    if (wake.update_id < parked.fromUpdateId) return;
    this.scheduleWake();
  }

  /** The updates that answer `parked`: from its first awaited id on, contiguous; none when there is a gap. */
  private readyFrom(parked: ParkedPoll, updates: LogUpdate[]): LogUpdate[] {
    // Update ids start at 1: a poll from 0 waits for 1 first.
    const from = Math.max(parked.fromUpdateId, 1);
    const carried = updates.filter((u) => u.update_id >= from);
    const contiguous = carried.every((u, i) => u.update_id === from + i);
    return contiguous ? carried.slice(0, parked.limit) : [];
  }

  private scheduleWake(): void {
    if (this.wakeScheduled || !this.parked) return;
    this.wakeScheduled = true;
    setTimeout(() => {
      this.wakeScheduled = false;
      this.self((actor) => actor.serveParked());
    }, WAKE_BATCH_MS);
  }

  private async serveParked(): Promise<void> {
    const parked = this.parked;
    if (!parked) return;
    const ready = await this.deps.log.read(this.botId, parked.fromUpdateId, parked.limit);
    if (ready.length > 0) this.finish(parked.id, ready);
  }

  private terminateParked(): void {
    const parked = this.parked;
    if (!parked) return;
    this.clearParked();
    parked.reject(conflict(TERMINATED_BY_OTHER_POLL, "poll_superseded"));
  }

  private finish(id: string, updates: LogUpdate[]): void {
    const parked = this.parked;
    if (!parked || parked.id !== id) return;
    this.clearParked();
    parked.resolve(updates);
  }

  private clearParked(): void {
    if (this.parked) clearTimeout(this.parked.timer);
    this.parked = undefined;
    parkedPolls.get(this.deps)?.delete(this.botId);
    this.quietIfIdle();
  }

  /** Drops the bus subscriptions a while after nothing waits, so idle bots cost nothing. */
  private quietIfIdle(): void {
    if (this.parked || this.subscriptions.length === 0 || this.lingerTimer) return;
    this.lingerTimer = setTimeout(() => {
      this.lingerTimer = undefined;
      this.self(async (actor) => {
        if (!actor.parked) actor.unsubscribe();
      });
    }, WAKE_LINGER_MS);
  }

  private unsubscribe(): void {
    clearTimeout(this.lingerTimer);
    this.lingerTimer = undefined;
    for (const unsubscribe of this.subscriptions.splice(0)) unsubscribe();
  }
}
