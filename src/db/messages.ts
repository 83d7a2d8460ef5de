import type { Queryable } from "./driver.ts";
import { json } from "./driver.ts";
import type { MessageEntity } from "../core/updates.ts";
import type { StoredFile } from "../core/files.ts";

export interface DbMessage {
  id: string;
  bot_id: string;
  conversation_id: string;
  message_id: number;
  direction: "in" | "out";
  sender: "user" | "bot" | "operator";
  contact_id: string | null;
  from_id: string | null;
  text: string;
  entities: MessageEntity[] | null;
  reply_markup: Record<string, unknown> | null;
  metadata: Record<string, unknown>;
  /** The message's files, in order (empty for text alone). */
  attachments: StoredFile[];
  client_message_id: string | null;
  created_at: Date;
  edited_at: Date | null;
  deleted_at: Date | null;
  /** A note among members: never shown or sent outside the team. */
  private: boolean;
}

/** Shared with the stream queries (db/streams.ts), so a new column reaches every reader. */
export const MESSAGE_COLUMNS = `m.id, m.bot_id, m.conversation_id, m.message_id, m.direction, m.sender, m.contact_id, m.from_id,
  m.text, m.entities, m.reply_markup, m.metadata, m.client_message_id, m.created_at, m.edited_at, m.deleted_at, m.attachments, m.private`;

export interface NewMessage {
  botId: string;
  ownerId: string;
  conversationId: string;
  messageId: number;
  direction: "in" | "out";
  sender: "user" | "bot" | "operator";
  contactId: string | null;
  fromId: string | null;
  text: string;
  /** Formatting (Telegram's entities); absent or null: plain text. */
  entities?: MessageEntity[] | null;
  replyMarkup: Record<string, unknown> | null;
  metadata: Record<string, unknown>;
  clientMessageId: string | null;
  createdAt: Date;
  attachments?: StoredFile[];
}

/** Returns undefined when client_message_id was already used in this conversation. */
export async function insertMessage(db: Queryable, m: NewMessage): Promise<DbMessage | undefined> {
  const rows = await db.query<DbMessage>(
    `insert into messages as m (bot_id, owner_id, conversation_id, message_id, direction, sender, contact_id, from_id,
                                text, reply_markup, metadata, client_message_id, created_at, entities, attachments)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::text::jsonb, $11::text::jsonb, $12, $13, $14::text::jsonb, $15::text::jsonb)
     on conflict (conversation_id, client_message_id) where client_message_id is not null do nothing
     returning ${MESSAGE_COLUMNS}`,
    [m.botId, m.ownerId, m.conversationId, m.messageId, m.direction, m.sender, m.contactId, m.fromId, m.text,
      m.replyMarkup === null ? null : json(m.replyMarkup), json(m.metadata), m.clientMessageId, m.createdAt,
      m.entities ? json(m.entities) : null, json(m.attachments ?? [])],
  );
  return rows[0];
}

export async function findMessageByBotMessageId(db: Queryable, botId: string, messageId: number): Promise<DbMessage | undefined> {
  const rows = await db.query<DbMessage>(
    // A bot never reaches the team's private notes, not even by guessing their message_id.
    `select ${MESSAGE_COLUMNS} from messages m where m.bot_id = $1 and m.message_id = $2 and not m.private`,
    [botId, messageId],
  );
  return rows[0];
}

/**
 * The latest `limit` visible messages (before message_id `before` when given), oldest first;
 * private notes only for members (`withPrivate`), never for the visitor's history.
 */
export async function listConversationMessages(
  db: Queryable, conversationId: string, limit: number, before: number | null, withPrivate = false,
): Promise<DbMessage[]> {
  const rows = await db.query<DbMessage>(
    `select ${MESSAGE_COLUMNS} from messages m
     where m.conversation_id = $1 and m.deleted_at is null and ($3::bigint is null or m.message_id < $3::bigint)
       and ($4::boolean or not m.private)
     order by m.message_id desc limit $2`,
    [conversationId, limit, before, withPrivate],
  );
  return rows.reverse();
}

export async function findMessagesByIds(db: Queryable, ids: string[]): Promise<DbMessage[]> {
  if (ids.length === 0) return [];
  return db.query<DbMessage>(`select ${MESSAGE_COLUMNS} from messages m where m.id = any($1::uuid[])`, [ids]);
}

/**
 * A null replyMarkup keeps the current one; `{}` removes it (editMessageReplyMarkup without
 * a markup). The entities always follow the new text.
 */
export async function updateMessageText(
  db: Queryable, id: string, text: string, replyMarkup: Record<string, unknown> | null, entities: MessageEntity[] | null = null,
): Promise<DbMessage> {
  const rows = await db.query<DbMessage>(
    `update messages m set text = $2, reply_markup = nullif(coalesce($3::text::jsonb, m.reply_markup), '{}'::jsonb),
       entities = $4::text::jsonb, edited_at = now()
     where m.id = $1 returning ${MESSAGE_COLUMNS}`,
    [id, text, replyMarkup === null ? null : json(replyMarkup), entities ? json(entities) : null],
  );
  return rows[0]!;
}

export async function markMessageDeleted(db: Queryable, id: string): Promise<void> {
  await db.query(`update messages set deleted_at = now() where id = $1`, [id]);
}
