// Queries behind the live streams' resume: what a reconnecting client missed. The widget
// stream resumes by per-bot message_id (commit-ordered: ids are taken under the bot row's
// lock), the inbox stream by database time with a look-back (see src/http/streams/inbox.ts).
import { CONVERSATION_COLUMNS, type DbConversation } from "./conversations.ts";
import type { Queryable } from "./driver.ts";
import { MESSAGE_COLUMNS, type DbMessage } from "./messages.ts";

/** Visible messages (never private notes: this is the visitor's stream) of a conversation after message_id `after`, oldest first. */
export async function messagesAfter(db: Queryable, conversationId: string, after: number, limit: number): Promise<DbMessage[]> {
  return db.query<DbMessage>(
    `select ${MESSAGE_COLUMNS} from messages m
     where m.conversation_id = $1 and m.message_id > $2::bigint and m.deleted_at is null and not m.private
     order by m.message_id asc limit $3`,
    [conversationId, after, limit],
  );
}

/** The highest message_id in a conversation (0 when it has none): "from now on". */
export async function latestMessageId(db: Queryable, conversationId: string): Promise<number> {
  const rows = await db.query<{ n: number | string | null }>(
    `select max(message_id) as n from messages where conversation_id = $1`,
    [conversationId],
  );
  return Number(rows[0]?.n ?? 0);
}

/** The database's clock: stream cursors compare with timestamps the database wrote. */
export async function databaseNow(db: Queryable): Promise<Date> {
  const rows = await db.query<{ now: Date | string }>(`select now() as now`);
  return new Date(rows[0]!.now);
}

/** Conversations of the user's bots (any role) changed after `since`, oldest change first. */
export async function conversationsChangedSince(db: Queryable, userId: string, since: Date, limit: number): Promise<DbConversation[]> {
  return db.query<DbConversation>(
    `select ${CONVERSATION_COLUMNS} from conversations c
     where c.bot_id in (select bot_id from bot_members where user_id = $1) and c.updated_at > $2::timestamptz
     order by c.updated_at asc, c.id asc limit $3`,
    [userId, since, limit],
  );
}

/** Messages of these conversations written, edited or deleted after `since`, in id order. */
export async function messagesChangedSince(db: Queryable, conversationIds: string[], since: Date, limit: number): Promise<DbMessage[]> {
  if (conversationIds.length === 0) return [];
  return db.query<DbMessage>(
    `select ${MESSAGE_COLUMNS} from messages m
     where m.conversation_id = any($1::uuid[])
       and (m.created_at > $2::timestamptz or m.edited_at > $2::timestamptz or m.deleted_at > $2::timestamptz)
     order by m.bot_id, m.message_id asc limit $3`,
    [conversationIds, since, limit],
  );
}
