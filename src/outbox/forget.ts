// Removes outbox rows whose updates are durable in the log. Nobody waits for it: a row left
// behind is only republished by the relay (a repeat the log drops), so the deletes of every
// bot's batches are gathered for a moment and sent as ONE statement (its own commit), instead
// of one autocommitted delete per batch, each with its own WAL flush.
import type { Db } from "../db/driver.ts";
import { deleteOutboxPairs } from "../db/outbox.ts";
import type { Logger } from "../logger.ts";
import { RELAY_GRACE_MS } from "./relay.ts";

/** Why: gathers many batches into one delete, and is far below RELAY_GRACE_MS, so the relay never sees a published row as left behind. */
export const FORGET_DELAY_MS = 50;
/** Why: bounds one statement's arrays; more rows than this are sent at once, not after the delay. */
export const FORGET_MAX_ROWS = 5_000;

if (FORGET_DELAY_MS * 10 > RELAY_GRACE_MS) throw new Error("FORGET_DELAY_MS must stay far below RELAY_GRACE_MS");

export interface OutboxForgetter {
  forget(botId: string, updateIds: number[]): void;
  /** Sends what is gathered now; resolves when it is deleted (or the attempt failed and was logged). */
  close(): Promise<void>;
}

export function createOutboxForgetter(db: Db, logger: Logger): OutboxForgetter {
  let bots: string[] = [];
  let ids: number[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  let inFlight = new Set<Promise<void>>();

  const flush = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (ids.length === 0) return;
    const sending = deleteOutboxPairs(db, bots, ids)
      .catch((err: unknown) => logger.warn({ err: String(err) }, "outbox cleanup failed; the relay republishes what is left"))
      .finally(() => inFlight.delete(sending));
    inFlight.add(sending);
    bots = [];
    ids = [];
  };

  return {
    forget(botId, updateIds) {
      for (const id of updateIds) {
        bots.push(botId);
        ids.push(id);
      }
      if (ids.length >= FORGET_MAX_ROWS) flush();
      else timer ??= setTimeout(flush, FORGET_DELAY_MS);
    },
    async close() {
      flush();
      await Promise.all(inFlight);
      inFlight = new Set();
    },
  };
}
