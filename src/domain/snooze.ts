// Snooze: "waiting until tomorrow 9:00". The time is a row (db/snoozes.ts), so it outlives
// the process; a scan in every web process reopens what is due, each row claimed by one.
import { badRequest } from "../core/errors.ts";
import type { DbConversation } from "../db/conversations.ts";
import { findConversationById } from "../db/conversations.ts";
import { claimDueSnoozes, deleteSnooze, finishSnooze, snoozesOf, upsertSnooze } from "../db/snoozes.ts";
import { setStatusAndNote, type ConversationDeps } from "./conversations.ts";

/** Why: a snooze is "later today" to "after the holidays"; a year ahead is a typo. */
export const MAX_SNOOZE_DAYS = 366;
/** Why: bounds one scan's work; the next scan goes on. */
export const SNOOZE_SCAN_BATCH = 100;

/** Checks a requested snooze: only with status waiting, a valid time not too far ahead. */
export function parseSnooze(status: string | undefined, snoozedUntil: string | null | undefined, now: Date): Date | null | undefined {
  if (snoozedUntil === undefined) return undefined;
  if (snoozedUntil === null) return null;
  if (status !== "waiting") throw badRequest('snoozed_until: needs status "waiting" in the same request');
  const until = new Date(snoozedUntil);
  if (Number.isNaN(until.getTime())) throw badRequest("snoozed_until: not an ISO time");
  if (until.getTime() - now.getTime() > MAX_SNOOZE_DAYS * 86_400_000) throw badRequest(`snoozed_until: at most ${MAX_SNOOZE_DAYS} days ahead`);
  return until;
}

/**
 * After a PATCH: a snooze is stored with its waiting status; any other status move ends one.
 * A time already past reopens at the next scan.
 */
export async function applySnooze(deps: ConversationDeps, row: DbConversation, status: string | undefined, until: Date | null | undefined): Promise<void> {
  if (until) await upsertSnooze(deps.db, row.id, row.bot_id, until);
  else if (until === null || (status !== undefined && status !== "waiting")) await deleteSnooze(deps.db, row.id);
}

/**
 * When each snoozed conversation reopens, by id. Only a waiting conversation is snoozed: the
 * scan reopens before it removes the row, and a reader between those two steps must not see an
 * open conversation that still names a time.
 */
export async function snoozedUntil(deps: Pick<ConversationDeps, "db">, conversations: Pick<DbConversation, "id" | "status">[]): Promise<Map<string, string>> {
  const rows = await snoozesOf(deps.db, conversations.filter((c) => c.status === "waiting").map((c) => c.id));
  return new Map([...rows].map(([id, until]) => [id, until.toISOString()]));
}

/** Reopens due snoozes still waiting; returns how many it reopened. */
export async function reopenDue(deps: ConversationDeps): Promise<number> {
  let reopened = 0;
  for (const due of await claimDueSnoozes(deps.db, SNOOZE_SCAN_BATCH)) {
    const row = await findConversationById(deps.db, due.conversation_id);
    // A visitor who wrote meanwhile already reopened it; a closed one stays closed.
    if (row && row.status === "waiting") {
      await setStatusAndNote(deps, row, "open", null);
      reopened++;
    }
    await finishSnooze(deps.db, due.conversation_id, due.until);
  }
  return reopened;
}
