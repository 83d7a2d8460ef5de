// Brings back updates the log acknowledged and then lost. NATS JetStream acknowledges an append
// before it flushes it to disk (every two minutes by default), so a power cut of its machine
// takes the last ones; a NATS cluster's new leader has been seen without some its predecessor
// acknowledged (docs/decisions.md rounds 37–38). Their outbox rows were kept (sql/330) for
// OUTBOX_KEEP_MS: a reader meeting a gap republishes the kept ones it misses (ordered-log.ts),
// and after a reconnect to NATS each bot's kept updates above what its log still holds are
// republished (a lost tail shows no gap: nothing came after it).
import type { PendingUpdate } from "../core/events.ts";
import type { Db } from "../db/driver.ts";
import { listKeptBots, listKeptUpdates, listKeptUpdatesAbove, natsServerSeen, recordNatsServerSeen, type OutboxUpdate } from "../db/outbox.ts";
import type { Logger } from "../logger.ts";
import type { UpdateLog } from "../updates/log.ts";
import { OUTBOX_KEEP_MS } from "./relay.ts";

/** Why: one republish's size, like a pump round (dispatch.ts PUBLISH_ROUND_ROWS); a longer gap takes more reads. */
export const REPAIR_MAX_IDS = 500;

export interface KeptRepair {
  /**
   * Republishes those of `missing` that are kept; true when any was (the reader then holds back
   * at the gap, and its next read finds them). An id is republished once per process: one the
   * log still does not show afterwards is passed over as before.
   */
  gap(botId: string, missing: number[]): Promise<boolean>;
  /** Each bot's kept updates above the highest its log holds, republished; returns how many. */
  tails(log: UpdateLog): Promise<number>;
}

export function createKeptRepair(db: Db, publish: (botId: string, updates: PendingUpdate[]) => Promise<void>, logger: Logger): KeptRepair {
  /** `bot:update_id` → when it was republished; forgotten once its kept row is gone too. */
  const republished = new Map<string, number>();

  /** The kept updates of `updates` not republished by this process yet (an erased message's: none). */
  const fresh = (botId: string, updates: OutboxUpdate[]): PendingUpdate[] => {
    const now = Date.now();
    for (const [key, at] of republished) if (at < now - OUTBOX_KEEP_MS) republished.delete(key);
    return updates.flatMap((u) => (u.payload === null || republished.has(`${botId}:${u.update_id}`) ? [] : [{ botId, updateId: u.update_id, payload: u.payload }]));
  };

  const republish = async (botId: string, updates: OutboxUpdate[], why: string): Promise<number> => {
    const list = fresh(botId, updates);
    if (list.length === 0) return 0;
    logger.warn({ botId, updateIds: list.map((u) => u.updateId).slice(0, 20), count: list.length }, why);
    await publish(botId, list);
    // Only once appended: a publish that failed (NATS still restarting) is tried again by the next read.
    const at = Date.now();
    for (const u of list) republished.set(`${botId}:${u.updateId}`, at);
    return list.length;
  };

  return {
    async gap(botId, missing) {
      if (missing.length === 0) return false;
      const kept = await listKeptUpdates(db, botId, missing.slice(0, REPAIR_MAX_IDS));
      return (await republish(botId, kept, "the update log lost acknowledged updates: republished from the kept outbox")) > 0;
    },

    async tails(log) {
      let count = 0;
      for (const { bot_id: botId, highest } of await listKeptBots(db)) {
        const [last] = await log.tail(botId, 1);
        const held = Math.max(last?.update_id ?? 0, (await log.confirmedBelow(botId)) - 1);
        if (held >= highest) continue;
        const kept = await listKeptUpdatesAbove(db, botId, held, REPAIR_MAX_IDS);
        count += await republish(botId, kept, "the update log lost the last acknowledged updates: republished from the kept outbox");
      }
      return count;
    },
  };
}

/** Why: right after its server restarts, JetStream answers timeouts and "no responders" for a few seconds. */
export const TAIL_REPAIR_ATTEMPTS = 15;
/** Why: a pause between attempts that keeps a restarting server from being asked 15 times at once. */
export const TAIL_REPAIR_PAUSE_MS = 1_000;

/**
 * After a start or a reconnect: when the NATS server is not the one last looked at (it restarted,
 * and may have come back without its last appends), runs `tails`, again until JetStream answers.
 * `serverId` is asked each attempt (a reconnect may not have told it yet); `stopping` ends it.
 */
export async function repairTailsAfterRestart(
  db: Db, serverId: () => string | undefined, tails: () => Promise<number>, logger: Logger, stopping: AbortSignal,
): Promise<void> {
  for (let attempt = 1; attempt <= TAIL_REPAIR_ATTEMPTS && !stopping.aborted; attempt++) {
    await Bun.sleep(TAIL_REPAIR_PAUSE_MS);
    if (stopping.aborted) return;
    try {
      const current = serverId();
      if (!current) continue;
      if ((await natsServerSeen(db)) === current) return;
      await tails();
      // Recorded once looked at: a look that failed every attempt is made by the next start.
      await recordNatsServerSeen(db, current);
      return;
    } catch (err) {
      if (attempt === TAIL_REPAIR_ATTEMPTS) logger.warn({ err: String(err) }, "could not look for lost updates after NATS restarted");
    }
  }
}
