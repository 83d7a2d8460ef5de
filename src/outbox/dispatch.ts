// Carries out a committed change's effects: events go to the bus (inbox live view,
// widget stream, push worker); updates go to the update log, after which their outbox
// rows are removed. A failure here never undoes the commit: the outbox relay retries
// updates, and events are best-effort notifications backed by the database.
import type { Db } from "../db/driver.ts";
import { deleteOutboxUpTo, listBotOutboxUpTo } from "../db/outbox.ts";
import type { EventBus } from "../bus/bus.ts";
import type { Effects, PendingUpdate } from "../core/events.ts";
import { eventSubject } from "../core/subjects.ts";
import type { Logger } from "../logger.ts";

export interface UpdateSink {
  /** Makes the bot's updates durable in the log (pipelined, in this order) and wakes pollers; resolves when they are. */
  publishUpdates(botId: string, updates: PendingUpdate[]): Promise<void>;
  /** Throws at once (an `unavailable` AppError) when the log cannot be reached now, instead of waiting for a timeout. */
  assertReachable(): void;
}

/** Why: bounds one round's memory after a long outage; the round goes on with the next rows. */
export const PUBLISH_ROUND_ROWS = 500;

/** Publishes a bot's committed outbox rows up to an update_id (every row when omitted). */
export type PublishUpTo = (botId: string, uptoUpdateId?: number) => Promise<void>;

interface Waiter {
  upto: number;
  resolve: () => void;
  reject: (err: unknown) => void;
}

interface BotPump {
  waiting: Waiter[];
  running: boolean;
}

/**
 * The relay's and idempotent repeats' publishes of a bot's committed outbox rows (new
 * messages publish their own batch, actors/intake.ts) go through one pump per bot that lists
 * the outbox in update_id order and publishes a round pipelined. A round's rows may land
 * out of order if it fails half-way; readers hold back behind such a gap while the missing
 * update is still in the outbox (ordered-log.ts), so no reader skips an update on its way.
 *
 * Callers that arrive while a round runs are served together by the next round, so a
 * request waits at most for two rounds, not for a queue of them.
 */
export function createOutboxPublisher(db: Db, sink: UpdateSink): PublishUpTo {
  const pumps = new Map<string, BotPump>();

  async function publishRound(botId: string, upto: number): Promise<void> {
    for (;;) {
      const rows = await listBotOutboxUpTo(db, botId, upto, PUBLISH_ROUND_ROWS);
      if (rows.length) {
        // A row whose message was erased meanwhile has nothing to publish: it is deleted with the
        // rest, and readers held back behind its update_id go on (ordered-log.ts).
        const updates = rows.flatMap((row) => (row.payload === null ? [] : [{ botId, updateId: row.update_id, payload: row.payload }]));
        if (updates.length) {
          sink.assertReachable();
          await sink.publishUpdates(botId, updates);
        }
        // Rows below a published one are durable too (published before it, or by another process).
        await deleteOutboxUpTo(db, botId, rows[rows.length - 1]!.update_id);
      }
      if (rows.length < PUBLISH_ROUND_ROWS) return;
    }
  }

  async function run(botId: string, pump: BotPump): Promise<void> {
    pump.running = true;
    while (pump.waiting.length) {
      const round = pump.waiting.splice(0);
      const upto = Math.max(...round.map((w) => w.upto));
      try {
        await publishRound(botId, upto);
        for (const w of round) w.resolve();
      } catch (err) {
        for (const w of round) w.reject(err);
      }
    }
    pump.running = false;
    pumps.delete(botId);
  }

  return function publishUpTo(botId, uptoUpdateId = Number.MAX_SAFE_INTEGER) {
    let pump = pumps.get(botId);
    if (!pump) {
      pump = { waiting: [], running: false };
      pumps.set(botId, pump);
    }
    const p = pump;
    return new Promise<void>((resolve, reject) => {
      p.waiting.push({ upto: uptoUpdateId, resolve, reject });
      if (!p.running) void run(botId, p);
    });
  };
}

export function createDispatcher(deps: { bus: EventBus; logger: Logger; publishUpTo: PublishUpTo }) {
  return async function dispatch(effects: Effects): Promise<void> {
    const highest = new Map<string, number>();
    for (const u of effects.updates) highest.set(u.botId, Math.max(u.updateId, highest.get(u.botId) ?? 0));
    try {
      await Promise.all([...highest].map(([botId, upto]) => deps.publishUpTo(botId, upto)));
    } finally {
      // Also when the log is briefly unreachable (the request answers 503): the rows are
      // committed, so live views may show them; the update follows through the relay.
      // Events in a row on one subject (a batch's messages) travel as one bus message.
      for (const run of runsBySubject(effects.events)) {
        deps.bus.publishMany(run.subject, run.events).catch((err: unknown) => deps.logger.warn({ err, subject: run.subject }, "event publish failed"));
      }
    }
  };
}

/** Consecutive events with the same subject, in order. */
function runsBySubject(events: Effects["events"]): { subject: string; events: Effects["events"] }[] {
  const runs: { subject: string; events: Effects["events"] }[] = [];
  for (const event of events) {
    const subject = eventSubject(event);
    const last = runs[runs.length - 1];
    if (last?.subject === subject) last.events.push(event);
    else runs.push({ subject, events: [event] });
  }
  return runs;
}
