// Routing (sql/200_…): each bot's mode and capacity, and the one statement sequence that
// assigns a conversation. Every decision of a bot holds its bot_routing row locked until
// commit, so decisions made by several processes come one after another: the loads they
// count are always the committed ones, and the conversation_assignees primary key with
// `on conflict do nothing` leaves exactly one assignee however the decisions interleave.
import type { Queryable } from "./driver.ts";
import { presenceSql } from "./presence.ts";

export type RoutingMode = "off" | "round_robin" | "least_busy";

export interface DbRouting {
  bot_id: string;
  mode: RoutingMode;
  capacity: number;
  updated_at: Date;
}

/** Why: a bot with no webhook that has not polled in this long has no backend: the inbox is the only answer (docs/design.md §13.3). */
export const BACKEND_SILENT_SECONDS = 300;

/** The statuses that count towards a member's capacity: conversations still to be answered. */
const LOADED_STATUSES = `('new', 'open')`;

/** Whether the bot routes or sends an away message at all: one cheap look before anything else. */
export async function teamworkActive(db: Queryable, botId: string): Promise<boolean> {
  const rows = await db.query(
    `select 1 where exists (select 1 from bot_routing where bot_id = $1 and mode <> 'off')
       or exists (select 1 from bot_hours where bot_id = $1 and away_message <> '')`,
    [botId],
  );
  return rows.length > 0;
}

export async function findRouting(db: Queryable, botId: string): Promise<DbRouting | undefined> {
  const rows = await db.query<DbRouting>(`select bot_id, mode, capacity, updated_at from bot_routing where bot_id = $1`, [botId]);
  return rows[0];
}

export async function upsertRouting(db: Queryable, botId: string, mode: RoutingMode, capacity: number): Promise<DbRouting> {
  const rows = await db.query<DbRouting>(
    `insert into bot_routing (bot_id, mode, capacity) values ($1, $2, $3)
     on conflict (bot_id) do update set mode = excluded.mode, capacity = excluded.capacity, updated_at = now()
     returning bot_id, mode, capacity, updated_at`,
    [botId, mode, capacity],
  );
  return rows[0]!;
}

/** Takes the bot's routing lock for the rest of the transaction; undefined when routing is off. */
export async function lockRouting(tx: Queryable, botId: string): Promise<DbRouting | undefined> {
  const rows = await tx.query<DbRouting>(
    `select bot_id, mode, capacity, updated_at from bot_routing where bot_id = $1 and mode <> 'off' for update`,
    [botId],
  );
  return rows[0];
}

/** SQL: conversation `c` of bot `b` needs a human (a handoff, a takeover, or a bot with no backend). */
export const NEEDS_HUMAN_SQL = `(c.handled_by = 'human' or (b.webhook_url is null and not exists (
  select 1 from bot_backend_seen s where s.bot_id = b.id and s.polled_at > now() - interval '${BACKEND_SILENT_SECONDS} seconds')))`;

/** Whether the conversation is open, unassigned and needs a human now. */
export async function isRoutable(tx: Queryable, conversationId: string): Promise<boolean> {
  const rows = await tx.query(
    `select 1 from conversations c join bots b on b.id = c.bot_id
     where c.id = $1 and c.status <> 'closed'
       and not exists (select 1 from conversation_assignees a where a.conversation_id = c.id)
       and ${NEEDS_HUMAN_SQL}`,
    [conversationId],
  );
  return rows.length > 0;
}

export async function needsHuman(db: Queryable, conversationId: string): Promise<boolean> {
  const rows = await db.query(
    `select 1 from conversations c join bots b on b.id = c.bot_id where c.id = $1 and ${NEEDS_HUMAN_SQL}`,
    [conversationId],
  );
  return rows.length > 0;
}

/** The online member under capacity the mode picks (undefined: nobody can take it). */
export async function pickMember(tx: Queryable, routing: DbRouting, exceptUserId: string | null = null): Promise<string | undefined> {
  const order = routing.mode === "least_busy" ? "load asc, m.last_routed_at asc nulls first" : "m.last_routed_at asc nulls first";
  const rows = await tx.query<{ user_id: string }>(
    `select m.user_id from bot_members m
     left join member_presence p on p.user_id = m.user_id
     cross join lateral (select count(*) as load from conversation_assignees a join conversations c on c.id = a.conversation_id
       where a.bot_id = m.bot_id and a.user_id = m.user_id and c.status in ${LOADED_STATUSES}) l
     where m.bot_id = $1 and ${presenceSql("m.user_id")} = 'online' and l.load < $2 and m.user_id is distinct from $3::uuid
     order by ${order}, m.user_id limit 1`,
    [routing.bot_id, routing.capacity, exceptUserId],
  );
  return rows[0]?.user_id;
}

/** Assigns only if nobody holds it; true when this call made the assignment. */
export async function assignIfUnassigned(tx: Queryable, conversationId: string, botId: string, userId: string): Promise<boolean> {
  const rows = await tx.query(
    `insert into conversation_assignees (conversation_id, bot_id, user_id) values ($1, $2, $3) on conflict (conversation_id) do nothing returning 1`,
    [conversationId, botId, userId],
  );
  if (rows.length === 0) return false;
  await tx.query(`update bot_members set last_routed_at = clock_timestamp() where bot_id = $1 and user_id = $2`, [botId, userId]);
  return true;
}

/**
 * Unassigned conversations that need a human, oldest first, of routing bots where some online
 * member has room now (the periodic scan: a bot whose team is full or away costs one check).
 */
export async function listRoutable(db: Queryable, limit: number): Promise<{ id: string; bot_id: string }[]> {
  return db.query(
    `with open_bots as (
       select r.bot_id from bot_routing r where r.mode <> 'off' and exists (
         select 1 from bot_members m left join member_presence p on p.user_id = m.user_id
         where m.bot_id = r.bot_id and ${presenceSql("m.user_id")} = 'online'
           and (select count(*) from conversation_assignees a join conversations c on c.id = a.conversation_id
                where a.bot_id = m.bot_id and a.user_id = m.user_id and c.status in ${LOADED_STATUSES}) < r.capacity))
     select c.id, c.bot_id from open_bots o join conversations c on c.bot_id = o.bot_id join bots b on b.id = c.bot_id
     where c.status in ${LOADED_STATUSES}
       and not exists (select 1 from conversation_assignees a where a.conversation_id = c.id)
       and ${NEEDS_HUMAN_SQL}
     order by c.last_message_at limit $1`,
    [limit],
  );
}

/**
 * Conversations of routing bots whose assignee has been offline longer than `offlineSeconds`:
 * chosen offline that long ago, or (automatic) no cabinet seen for that long.
 */
export async function listStranded(db: Queryable, offlineSeconds: number, limit: number): Promise<{ id: string; bot_id: string; user_id: string }[]> {
  return db.query(
    `select c.id, c.bot_id, a.user_id from conversation_assignees a
     join conversations c on c.id = a.conversation_id
     join bot_routing r on r.bot_id = a.bot_id and r.mode <> 'off'
     left join member_presence p on p.user_id = a.user_id
     where c.status in ${LOADED_STATUSES} and ${presenceSql("a.user_id")} = 'offline'
       and greatest(
         case when p.choice = 'offline' then p.changed_at end,
         (select max(s.seen_at) from cabinet_sessions s where s.user_id = a.user_id),
         a.assigned_at
       ) < now() - make_interval(secs => $1)
     order by a.assigned_at limit $2`,
    [offlineSeconds, limit],
  );
}

/** Takes the conversation away from `userId` (only if still theirs); true when it did. */
export async function unassignFrom(tx: Queryable, conversationId: string, userId: string): Promise<boolean> {
  const rows = await tx.query(`delete from conversation_assignees where conversation_id = $1 and user_id = $2 returning 1`, [conversationId, userId]);
  return rows.length > 0;
}

/** The bot's backend polled get-updates; written at most once a minute per bot. */
export async function markBackendPolled(db: Queryable, botId: string): Promise<void> {
  await db.query(
    `insert into bot_backend_seen (bot_id, polled_at) values ($1, now())
     on conflict (bot_id) do update set polled_at = now() where bot_backend_seen.polled_at < now() - interval '60 seconds'`,
    [botId],
  );
}
