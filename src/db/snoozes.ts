// Snoozed conversations (sql/200_…): a durable schedule. A due row is claimed for a short
// lease before it is acted on and deleted after, so with several processes each row is
// handled by one of them, and a process that dies mid-way leaves it to the next scan.
import type { Queryable } from "./driver.ts";

/** Why: far longer than reopening one conversation takes, short enough that a crash delays a reopening by under a minute. */
export const SNOOZE_CLAIM_SECONDS = 30;

export async function upsertSnooze(db: Queryable, conversationId: string, botId: string, until: Date): Promise<void> {
  await db.query(
    `insert into conversation_snoozes (conversation_id, bot_id, until) values ($1, $2, $3)
     on conflict (conversation_id) do update set until = excluded.until, claimed_until = null`,
    [conversationId, botId, until],
  );
}

export async function deleteSnooze(db: Queryable, conversationId: string): Promise<void> {
  await db.query(`delete from conversation_snoozes where conversation_id = $1`, [conversationId]);
}

/** Deletes the row only if it is still the one claimed (a new snooze set meanwhile stays). */
export async function finishSnooze(db: Queryable, conversationId: string, until: Date): Promise<void> {
  await db.query(`delete from conversation_snoozes where conversation_id = $1 and until = $2`, [conversationId, until]);
}

export async function snoozesOf(db: Queryable, conversationIds: string[]): Promise<Map<string, Date>> {
  if (conversationIds.length === 0) return new Map();
  const rows = await db.query<{ conversation_id: string; until: Date }>(
    `select conversation_id, until from conversation_snoozes where conversation_id = any($1::uuid[])`,
    [conversationIds],
  );
  return new Map(rows.map((r) => [r.conversation_id, new Date(r.until)]));
}

/** Claims up to `limit` due snoozes for SNOOZE_CLAIM_SECONDS; skip locked: two scanners never take the same row. */
export async function claimDueSnoozes(db: Queryable, limit: number): Promise<{ conversation_id: string; until: Date }[]> {
  const rows = await db.query<{ conversation_id: string; until: Date }>(
    `update conversation_snoozes s set claimed_until = now() + interval '${SNOOZE_CLAIM_SECONDS} seconds'
     where s.conversation_id in (
       select conversation_id from conversation_snoozes
       where until <= now() and (claimed_until is null or claimed_until < now())
       order by until limit $1 for update skip locked)
     returning s.conversation_id, s.until`,
    [limit],
  );
  return rows.map((r) => ({ conversation_id: r.conversation_id, until: new Date(r.until) }));
}
