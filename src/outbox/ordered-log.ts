// Readers never pass a gap that is still closing. Updates are published pipelined (a batch
// at a time, by whichever process committed them, and by the relay after an outage), so the
// log may briefly hold update N+1 without N. A reader that returned N+1 would let its bot
// confirm past N, and N would be lost when it lands. Update ids are contiguous per bot (taken
// under the bot row's lock, together with the outbox row), so a missing id is either already
// confirmed or expired, or committed and still in the outbox: reads stop before the first
// missing id that is still in the outbox.
import type { Db } from "../db/driver.ts";
import { firstUnpublishedUpdateId } from "../db/outbox.ts";
import { REPAIR_MAX_IDS } from "./repair.ts";
import type { LogUpdate, UpdateLog } from "../updates/log.ts";

/** Index of the first update whose predecessor (or, for the first, `from`) is missing; -1 when none is. */
function firstGap(from: number, updates: LogUpdate[]): number {
  let expected = from;
  for (let i = 0; i < updates.length; i++) {
    if (updates[i]!.update_id !== expected) return i;
    expected = updates[i]!.update_id + 1;
  }
  return -1;
}

/** Why: a passed gap is reported with its first ids only (an expired backlog can be long). */
const PASSED_IDS_REPORTED = 20;

/** Asks for the kept ones among `missing` to be republished (repair.ts); true when any was. */
export type RepairGap = (botId: string, missing: number[]) => Promise<boolean>;

/**
 * `onPassed`: a read hands out updates beyond ids that are neither in the log nor on their way
 * (erased, expired, or lost): rare, and the first thing to look at when a bot misses an update.
 * `repair`: before passing, ids the log lost after acknowledging them are republished from the
 * kept outbox (sql/330), and the read stops at the gap until they are back.
 */
export function orderedLog(
  log: UpdateLog, db: Db, onPassed: (botId: string, updateIds: number[]) => void = () => {}, repair: RepairGap = async () => false,
): UpdateLog {
  /** `updates` as read from `from`; `again` reads the same range once more. */
  async function deliverable(botId: string, from: number, updates: LogUpdate[], again: () => Promise<LogUpdate[]>): Promise<LogUpdate[]> {
    if (updates.length === 0 || firstGap(from, updates) < 0) return updates;
    // Ids below the watermark are confirmed, not on their way, though their outbox rows may
    // linger (they are removed lazily after publishing): a poll without an offset after a
    // confirm would otherwise wait behind them. Asked only here, off the common path.
    from = Math.max(from, await log.confirmedBelow(botId));
    const gap = firstGap(from, updates);
    if (gap < 0) return updates;
    const last = updates[updates.length - 1]!.update_id;
    const present = updates.map((u) => u.update_id);
    const missing = await firstUnpublishedUpdateId(db, botId, from, last, present);
    if (missing !== undefined) return updates.filter((u) => u.update_id < missing);
    // No committed update in the gaps is unpublished: each is confirmed, expired, erased, or
    // was published after our read (and removed from the outbox since). Published is not yet
    // readable everywhere (a stream leader just elected): the log settles first, then a second
    // read sees those. Should it fail to settle, the gap stays closed for this read.
    try {
      await log.settle?.(botId);
    } catch {
      return updates.slice(0, gap);
    }
    const second = (await again()).filter((u) => u.update_id <= last);
    const stillAt = firstGap(from, second);
    if (stillAt >= 0) {
      const read = new Set(second.map((u) => u.update_id));
      const missing: number[] = [];
      for (let id = from; id < last && missing.length < REPAIR_MAX_IDS; id++) if (!read.has(id)) missing.push(id);
      // Republished, or the kept rows could not be asked for: the gap stays closed for this read.
      if (await repair(botId, missing).catch(() => true)) return second.slice(0, stillAt);
      if (missing.length) onPassed(botId, missing.slice(0, PASSED_IDS_REPORTED));
    }
    return second;
  }

  return {
    // Everything but reading is the wrapped log's own (neither log uses `this`).
    ...log,
    async read(botId, fromUpdateId, limit) {
      const read = () => log.read(botId, fromUpdateId, limit);
      // Update ids start at 1, so reading from 0 expects 1 first.
      return deliverable(botId, Math.max(fromUpdateId, 1), await read(), read);
    },
    async tail(botId, count) {
      const tail = () => log.tail(botId, count);
      const got = await tail();
      // Before the tail nothing matters: a negative offset forgets everything older.
      return got.length ? deliverable(botId, got[0]!.update_id, got, tail) : got;
    },
  };
}
