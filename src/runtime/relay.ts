// The outbox relay: republishes updates whose transaction committed but whose publish
// never happened (a crash, NATS down). Appending is idempotent per (bot, update_id) and
// readers skip repeats, so relaying a row that is also being dispatched right now is harmless.
import type { Db } from "../db/driver.ts";
import { deleteOutbox, listStaleOutbox } from "../db/outbox.ts";
import type { UpdateSink } from "../dispatch.ts";
import type { Logger } from "../logger.ts";

/** How often a process looks for left-behind rows; an update is at most this late after a crash. */
export const RELAY_INTERVAL_MS = 5_000;
/** Rows younger than this are most likely still being dispatched by the request that wrote them. */
export const RELAY_GRACE_MS = 2_000;
/** Rows per round, so one round's work stays small after a long outage. */
export const RELAY_BATCH = 500;

export interface OutboxRelay {
  /** Relays rows older than graceMs; returns how many. */
  runOnce(graceMs?: number): Promise<number>;
  stop(): void;
}

export function startOutboxRelay(db: Db, sink: UpdateSink, logger: Logger, intervalMs = RELAY_INTERVAL_MS): OutboxRelay {
  let running: Promise<number> | undefined;
  const runOnce = async (graceMs = RELAY_GRACE_MS): Promise<number> => {
    let relayed = 0;
    for (;;) {
      const rows = await listStaleOutbox(db, new Date(Date.now() - graceMs), RELAY_BATCH);
      for (const row of rows) {
        await sink.publishUpdate({ botId: row.bot_id, updateId: row.update_id, payload: row.payload });
        await deleteOutbox(db, row.bot_id, row.update_id);
      }
      relayed += rows.length;
      if (rows.length < RELAY_BATCH) return relayed;
    }
  };
  const tick = () => {
    running ??= runOnce()
      .then((n) => {
        if (n > 0) logger.info({ relayed: n }, "outbox relay republished updates");
        return n;
      })
      .catch((err) => {
        logger.warn({ err }, "outbox relay failed; will retry");
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
