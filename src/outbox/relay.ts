// The outbox relay: publishes updates whose transaction committed but whose publish never
// happened (a crash, NATS down), and lets go of published rows kept past OUTBOX_KEEP_MS. It
// goes through the same per-bot publisher as requests, so a bot's updates reach the log in
// update_id order whoever publishes them; appending is idempotent per (bot, update_id) and
// readers skip repeats, so relaying a row another process is publishing right now is harmless.
import type { Db } from "../db/driver.ts";
import { forgetKeptBefore, listStaleOutboxBots } from "../db/outbox.ts";
import type { PublishUpTo } from "./dispatch.ts";
import type { Logger } from "../logger.ts";

/** How often a process looks for left-behind rows; an update is at most this late after a crash. */
export const RELAY_INTERVAL_MS = 5_000;
/** Rows younger than this are most likely still being dispatched by the request that wrote them. */
export const RELAY_GRACE_MS = 2_000;
/** Bots per round, so one round's work stays small after a long outage. */
export const RELAY_BATCH = 500;
/**
 * How long a published update's row is kept (sql/330, repair.ts): NATS flushes its store every
 * two minutes by default, so by then a power cut can no longer take the update; one more for margin.
 */
export const OUTBOX_KEEP_MS = 180_000;

export interface OutboxRelay {
  /** Publishes the outbox of every bot with a row older than graceMs; returns how many bots. */
  runOnce(graceMs?: number): Promise<number>;
  stop(): void;
}

export function startOutboxRelay(db: Db, publishUpTo: PublishUpTo, logger: Logger, intervalMs = RELAY_INTERVAL_MS): OutboxRelay {
  let running: Promise<number> | undefined;
  const runOnce = async (graceMs = RELAY_GRACE_MS): Promise<number> => {
    const bots = await listStaleOutboxBots(db, new Date(Date.now() - graceMs), RELAY_BATCH);
    for (const { bot_id, upto } of bots) await publishUpTo(bot_id, upto);
    await forgetKeptBefore(db, new Date(Date.now() - OUTBOX_KEEP_MS));
    return bots.length;
  };
  const tick = () => {
    running ??= runOnce()
      .then((n) => {
        if (n > 0) logger.info({ bots: n }, "outbox relay published left-behind updates");
        return n;
      })
      .catch((err) => {
        logger.warn({ err: String(err) }, "outbox relay failed; will retry");
        return 0;
      })
      .finally(() => (running = undefined));
  };
  const timer = intervalMs > 0 ? setInterval(tick, intervalMs) : undefined;
  timer?.unref?.();
  return {
    runOnce,
    stop: () => {
      if (timer) clearInterval(timer);
    },
  };
}
