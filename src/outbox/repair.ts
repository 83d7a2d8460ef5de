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
/** Why: one pass over the kept rows (no index) brings this much of a bot's lost tail; a longer one takes more passes. */
export const TAIL_ROUND_IDS = 5_000;
/** Why: a republish can be lost too (a NATS cluster losing its next leader); past this many a reader passes the gap. */
export const REPAIR_ATTEMPTS = 3;
/** Why: an acknowledged republish shows in the next read; one still missing this long after was lost again. */
export const REPAIR_AGAIN_MS = 2_000;

export interface KeptRepair {
  /**
   * `missing`: ids neither in the log nor in the outbox (ordered-log.ts asked).
   * Republishes those of `missing` that are kept; true when any was, or was a moment ago (the
   * reader then holds back at the gap, and a next read finds them). An id still missing
   * REPAIR_AGAIN_MS after its republish is republished again, REPAIR_ATTEMPTS times per process
   * at most; then the reader passes over it as before.
   */
  gap(botId: string, missing: number[]): Promise<boolean>;
  /** Each bot's kept updates above the highest its log holds, republished; returns how many. */
  tails(log: UpdateLog): Promise<number>;
}

export function createKeptRepair(
  db: Db, publish: (botId: string, updates: PendingUpdate[]) => Promise<void>, logger: Logger, now: () => number = Date.now,
): KeptRepair {
  /** `bot:update_id` → its last republish and how many there were; forgotten once its kept row is gone too. */
  const republished = new Map<string, { at: number; times: number }>();
  /**
   * `bot:update_id` missing from the log, the outbox and the kept rows: erased, or swept long ago.
   * Final (an id is taken together with its outbox row, which moves to the kept rows when
   * published), so asked once: a chat erased under a bot's pending updates leaves a gap every
   * read meets, and each ask is a pass over minutes of kept rows.
   */
  const notKept = new Map<string, number>();

  /** Of the kept `updates` (an erased message's carry nothing): those to republish now, and how many wait for a recent one. */
  const due = (botId: string, updates: OutboxUpdate[]) => {
    const at = now();
    for (const [key, last] of republished) if (last.at < at - OUTBOX_KEEP_MS) republished.delete(key);
    const list: PendingUpdate[] = [];
    let waiting = 0;
    for (const u of updates) {
      if (u.payload === null) continue;
      const last = republished.get(`${botId}:${u.update_id}`);
      if (last && last.at > at - REPAIR_AGAIN_MS) waiting++;
      else if (!last || last.times < REPAIR_ATTEMPTS) list.push({ botId, updateId: u.update_id, payload: u.payload });
    }
    return { list, waiting };
  };

  /** How many were republished, and how many wait for a republish a moment ago to show. */
  const republish = async (botId: string, updates: OutboxUpdate[], why: string) => {
    const { list, waiting } = due(botId, updates);
    if (list.length === 0) return { count: 0, waiting };
    logger.warn({ botId, updateIds: list.map((u) => u.updateId).slice(0, 20), count: list.length }, why);
    for (let i = 0; i < list.length; i += REPAIR_MAX_IDS) {
      const chunk = list.slice(i, i + REPAIR_MAX_IDS);
      await publish(botId, chunk);
      // Only once appended: a publish that failed (NATS still restarting) is tried again by the next read.
      const at = now();
      for (const u of chunk) {
        const key = `${botId}:${u.updateId}`;
        republished.set(key, { at, times: (republished.get(key)?.times ?? 0) + 1 });
      }
    }
    return { count: list.length, waiting };
  };

  return {
    async gap(botId, missing) {
      const at = now();
      for (const [key, seen] of notKept) if (seen < at - OUTBOX_KEEP_MS) notKept.delete(key);
      const unknown = missing.filter((id) => !notKept.has(`${botId}:${id}`)).slice(0, REPAIR_MAX_IDS);
      if (unknown.length === 0) return false;
      const kept = await listKeptUpdates(db, botId, unknown);
      const found = new Set(kept.map((u) => u.update_id));
      for (const id of unknown) if (!found.has(id)) notKept.set(`${botId}:${id}`, at);
      const { count, waiting } = await republish(botId, kept, "the update log lost acknowledged updates: republished from the kept outbox");
      return count + waiting > 0;
    },

    async tails(log) {
      let short: { botId: string; held: number }[] = [];
      for (const { bot_id: botId, highest } of await listKeptBots(db)) {
        // Most bots lost nothing: their last stored message is their newest update, one quick look.
        if (((await log.lastAppended?.(botId)) ?? 0) >= highest) continue;
        const [last] = await log.tail(botId, 1);
        const held = Math.max(last?.update_id ?? 0, (await log.confirmedBelow(botId)) - 1);
        if (held < highest) short.push({ botId, held });
      }
      let count = 0;
      while (short.length > 0) {
        const longer: typeof short = [];
        for (const [botId, kept] of await listKeptUpdatesAbove(db, short, TAIL_ROUND_IDS)) {
          count += (await republish(botId, kept, "the update log lost the last acknowledged updates: republished from the kept outbox")).count;
          if (kept.length === TAIL_ROUND_IDS) longer.push({ botId, held: kept[kept.length - 1]!.update_id });
        }
        short = longer;
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
