// Private notes (messages with private = true) and the mentions they make.
import { json, type Queryable } from "./driver.ts";
import { MESSAGE_COLUMNS, type DbMessage } from "./messages.ts";

export interface NewNote {
  botId: string;
  ownerId: string;
  conversationId: string;
  messageId: number;
  text: string;
  metadata: Record<string, unknown>;
}

export async function insertNote(db: Queryable, n: NewNote): Promise<DbMessage> {
  const rows = await db.query<DbMessage>(
    `insert into messages as m (bot_id, owner_id, conversation_id, message_id, direction, sender, text, metadata, private)
     values ($1, $2, $3, $4, 'out', 'operator', $5, $6::text::jsonb, true)
     returning ${MESSAGE_COLUMNS}`,
    [n.botId, n.ownerId, n.conversationId, n.messageId, n.text, json(n.metadata)],
  );
  return rows[0]!;
}

export async function insertMentions(
  db: Queryable, m: { userIds: string[]; botId: string; conversationId: string; messageId: string; byUserId: string },
): Promise<{ id: string; user_id: string }[]> {
  if (m.userIds.length === 0) return [];
  return db.query<{ id: string; user_id: string }>(
    `insert into mentions (user_id, bot_id, conversation_id, message_id, by_user_id)
     select u, $2, $3, $4, $5 from unnest($1::uuid[]) u returning id, user_id`,
    [m.userIds, m.botId, m.conversationId, m.messageId, m.byUserId],
  );
}

export interface DbMention {
  id: string;
  bot_id: string;
  conversation_id: string;
  message_id: string;
  by_user_id: string | null;
  by_email: string | null;
  text: string;
  chat_id: string;
  created_at: Date;
}

/** The user's mentions, newest first, on bots they are still a member of; keyset on (created_at, id). */
export async function listMentions(db: Queryable, userId: string, limit: number, before: { at: Date; id: string } | null): Promise<DbMention[]> {
  return db.query<DbMention>(
    `select n.id, n.bot_id, n.conversation_id, n.message_id, n.by_user_id, u.email as by_email, m.text, c.chat_id, n.created_at
     from mentions n
     join messages m on m.id = n.message_id
     join conversations c on c.id = n.conversation_id
     left join users u on u.id = n.by_user_id
     where n.user_id = $1 and n.bot_id in (select bot_id from bot_members where user_id = $1)
       and m.deleted_at is null
       and ($3::timestamptz is null or (n.created_at, n.id) < ($3::timestamptz, $4::uuid))
     order by n.created_at desc, n.id desc limit $2`,
    [userId, limit, before?.at ?? null, before?.id ?? null],
  );
}

export async function findMention(db: Queryable, userId: string, id: string): Promise<{ created_at: Date; id: string } | undefined> {
  const rows = await db.query<{ created_at: Date; id: string }>(`select id, created_at from mentions where user_id = $1 and id = $2`, [userId, id]);
  return rows[0];
}
