// Per-user inbox state beside the conversation rows (sql/121_…): who a conversation is
// assigned to, each user's read marker, and the counts the status tabs show. The message
// write path never touches these tables.
import { CONVERSATION_COLUMNS, type ConversationStatus, type DbConversation } from "./conversations.ts";
import type { Queryable } from "./driver.ts";

export interface DbAssignee {
  conversation_id: string;
  user_id: string;
  email: string;
}

export async function findAssignees(db: Queryable, conversationIds: string[]): Promise<DbAssignee[]> {
  if (conversationIds.length === 0) return [];
  return db.query<DbAssignee>(
    `select a.conversation_id, a.user_id, u.email from conversation_assignees a join users u on u.id = a.user_id
     where a.conversation_id = any($1::uuid[])`,
    [conversationIds],
  );
}

/** Assigns (userId) or unassigns (null); the caller has checked the user is a member. */
export async function setAssignee(db: Queryable, conversationId: string, botId: string, userId: string | null): Promise<void> {
  if (userId === null) {
    await db.query(`delete from conversation_assignees where conversation_id = $1`, [conversationId]);
    return;
  }
  await db.query(
    `insert into conversation_assignees (conversation_id, bot_id, user_id) values ($1, $2, $3)
     on conflict (conversation_id) do update set user_id = excluded.user_id, assigned_at = now()
     where conversation_assignees.user_id <> excluded.user_id`,
    [conversationId, botId, userId],
  );
}

/**
 * Joins `f.read_from` to conversation c: where this user's unread messages start, their read
 * marker but never below where they joined the bot (bot_members.read_floor). $1 is the user.
 */
const READ_FROM = `cross join lateral (select greatest(
  coalesce((select r.last_read_message_id from conversation_reads r where r.conversation_id = c.id and r.user_id = $1), 0),
  coalesce((select bm.read_floor from bot_members bm where bm.bot_id = c.bot_id and bm.user_id = $1), 0)) as read_from) f`;

/** Incoming, visible messages above the user's marker, per conversation (absent = 0). */
export async function unreadCounts(db: Queryable, userId: string, conversationIds: string[]): Promise<Map<string, number>> {
  if (conversationIds.length === 0) return new Map();
  const rows = await db.query<{ conversation_id: string; n: number | string }>(
    `select c.id as conversation_id,
       (select count(*) from messages m
         where m.conversation_id = c.id and m.direction = 'in' and m.deleted_at is null and m.message_id > f.read_from) as n
     from conversations c ${READ_FROM} where c.id = any($2::uuid[])`,
    [userId, conversationIds],
  );
  return new Map(rows.map((r) => [r.conversation_id, Number(r.n)]));
}

/** The newest message_id of a conversation (0 without messages). */
export async function newestMessageId(db: Queryable, conversationId: string): Promise<number> {
  const rows = await db.query<{ n: number | string | null }>(`select max(message_id) as n from messages where conversation_id = $1`, [conversationId]);
  return Number(rows[0]?.n ?? 0);
}

/** Moves the user's marker forward only: a late request from an older tab never un-reads. */
export async function markRead(db: Queryable, userId: string, conversationId: string, messageId: number): Promise<void> {
  await db.query(
    `insert into conversation_reads (user_id, conversation_id, last_read_message_id) values ($1, $2, $3)
     on conflict (user_id, conversation_id) do update
       set last_read_message_id = greatest(conversation_reads.last_read_message_id, excluded.last_read_message_id), updated_at = now()`,
    [userId, conversationId, messageId],
  );
}

export type AssigneeFilter = "me" | "unassigned" | "all";

/**
 * SQL for "the conversation matches the assignee filter"; $1 is the user. "me" is an IN over
 * the user's (few) assignments, so the planner can start from them instead of probing every row.
 */
export function assigneeClause(filter: AssigneeFilter): string {
  if (filter === "me") return `c.id in (select a.conversation_id from conversation_assignees a where a.user_id = $1)`;
  if (filter === "unassigned") return `not exists (select 1 from conversation_assignees a where a.conversation_id = c.id)`;
  return "true";
}

export interface StatusCounts {
  status: ConversationStatus;
  total: number;
  unread: number;
}

/** Conversations per status (and those with unread messages for the user) over the user's bots. */
export async function statusCounts(
  db: Queryable, userId: string, botId: string | null, assignee: AssigneeFilter,
): Promise<StatusCounts[]> {
  const rows = await db.query<{ status: ConversationStatus; total: number | string; unread: number | string }>(
    `select c.status, count(*) as total,
       count(*) filter (where exists (
         select 1 from messages m
         where m.conversation_id = c.id and m.direction = 'in' and m.deleted_at is null and m.message_id > f.read_from)) as unread
     from conversations c ${READ_FROM}
     where c.bot_id in (select bot_id from bot_members where user_id = $1)
       and ($2::uuid is null or c.bot_id = $2::uuid)
       and ${assigneeClause(assignee)}
     group by c.status`,
    [userId, botId],
  );
  return rows.map((r) => ({ status: r.status, total: Number(r.total), unread: Number(r.unread) }));
}

export interface DbContactConversation {
  id: string;
  chat_id: string;
  channel: string;
  status: ConversationStatus;
  last_message_at: Date;
}

/** Why: the contact panel lists recent ones; a contact with more is reached by search. */
export const CONTACT_CONVERSATIONS_LIMIT = 50;

export async function otherConversationsOfContact(db: Queryable, contactId: string, exceptId: string): Promise<DbContactConversation[]> {
  return db.query<DbContactConversation>(
    `select id, chat_id, channel, status, last_message_at from conversations
     where contact_id = $1 and id <> $2 order by last_message_at desc, id desc limit ${CONTACT_CONVERSATIONS_LIMIT}`,
    [contactId, exceptId],
  );
}

/** Metadata of the newest incoming message that names a page (page_url, or url). */
export async function latestPageMetadata(db: Queryable, conversationId: string): Promise<Record<string, unknown> | undefined> {
  const rows = await db.query<{ metadata: Record<string, unknown> }>(
    `select metadata from messages
     where conversation_id = $1 and direction = 'in' and (metadata ? 'page_url' or metadata ? 'url')
     order by message_id desc limit 1`,
    [conversationId],
  );
  return rows[0]?.metadata;
}

/** Marks the row changed (the inbox stream replays by updated_at) without touching anything else. */
export async function touchConversationUpdatedAt(db: Queryable, conversationId: string): Promise<DbConversation> {
  const rows = await db.query<DbConversation>(
    `update conversations c set updated_at = now() where c.id = $1 returning ${CONVERSATION_COLUMNS}`,
    [conversationId],
  );
  return rows[0]!;
}
