// Presence (sql/200_…): a member's own choice and their open cabinets. The effective presence
// is worked out in SQL (PRESENCE_SQL) so routing decides on the same rule in one statement.
import type { Queryable } from "./driver.ts";

export type PresenceStatus = "online" | "away" | "offline";

/** Why: a cabinet refreshes its row every CABINET_HEARTBEAT_MS; three missed refreshes mean it is gone (a crashed process). */
export const CABINET_STALE_SECONDS = 90;

/**
 * The effective presence of user `u` (a column or parameter) given its member_presence row `p`:
 * away or offline when chosen; online when chosen or while a cabinet of theirs is open; else offline.
 */
export const presenceSql = (u: string, p = "p") => `(case
  when ${p}.choice in ('away', 'offline') then ${p}.choice
  when ${p}.choice = 'online' then 'online'
  when exists (select 1 from cabinet_sessions s where s.user_id = ${u} and s.seen_at > now() - interval '${CABINET_STALE_SECONDS} seconds') then 'online'
  else 'offline' end)`;

export interface DbPresence {
  user_id: string;
  presence: PresenceStatus;
  choice: PresenceStatus | null;
}

export async function findPresences(db: Queryable, userIds: string[]): Promise<Map<string, DbPresence>> {
  if (userIds.length === 0) return new Map();
  const rows = await db.query<DbPresence>(
    `select u.id as user_id, ${presenceSql("u.id")} as presence, p.choice
     from users u left join member_presence p on p.user_id = u.id where u.id = any($1::uuid[])`,
    [userIds],
  );
  return new Map(rows.map((r) => [r.user_id, r]));
}

/** null: back to automatic. */
export async function setPresenceChoice(db: Queryable, userId: string, choice: PresenceStatus | null): Promise<void> {
  await db.query(
    `insert into member_presence (user_id, choice, changed_at) values ($1, $2, now())
     on conflict (user_id) do update set choice = excluded.choice, changed_at = now()`,
    [userId, choice],
  );
}

export async function touchCabinetSession(db: Queryable, sessionId: string, userId: string): Promise<void> {
  await db.query(
    `insert into cabinet_sessions (id, user_id, seen_at) values ($1, $2, now()) on conflict (id) do update set seen_at = now()`,
    [sessionId, userId],
  );
}

export async function deleteCabinetSession(db: Queryable, sessionId: string): Promise<void> {
  await db.query(`delete from cabinet_sessions where id = $1`, [sessionId]);
}

/** Removes cabinets whose process stopped refreshing them; returns whose they were. */
export async function deleteStaleCabinetSessions(db: Queryable): Promise<string[]> {
  const rows = await db.query<{ user_id: string }>(
    `delete from cabinet_sessions where seen_at <= now() - interval '${CABINET_STALE_SECONDS} seconds' returning user_id`,
  );
  return [...new Set(rows.map((r) => r.user_id))];
}

/** The bots a user is a member of, with their owners (events are published per owner). */
export async function botsOfMember(db: Queryable, userId: string): Promise<{ bot_id: string; owner_id: string }[]> {
  return db.query(`select b.id as bot_id, b.owner_id from bot_members m join bots b on b.id = m.bot_id where m.user_id = $1`, [userId]);
}
