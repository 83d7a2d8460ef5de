import type { Queryable } from "./driver.ts";

export type ConversationStatus = "new" | "open" | "waiting" | "closed";

export interface DbConversation {
  id: string;
  bot_id: string;
  owner_id: string;
  number: number;
  chat_id: string;
  channel: string;
  status: ConversationStatus;
  operator_note: string;
  contact_id: string | null;
  message_count: number;
  last_message_id: string | null;
  last_message_at: Date;
  created_at: Date;
  updated_at: Date;
  /** 'human' while an operator (or the bot's own handoff) has taken the conversation over. */
  handled_by: HandledBy;
  handed_over_by: string | null;
  handed_over_at: Date | null;
  /** Names of the bot's labels on it (bot_labels). */
  labels: string[];
}

export type HandledBy = "bot" | "human";

/** Shared with the stream queries (db/streams.ts), so a new column reaches every reader. */
export const CONVERSATION_COLUMNS = `c.id, c.bot_id, c.owner_id, c.number, c.chat_id, c.channel, c.status, c.operator_note,
  c.contact_id, c.message_count, c.last_message_id, c.last_message_at, c.created_at, c.updated_at,
  c.handled_by, c.handed_over_by, c.handed_over_at, c.labels`;

export async function findConversationByChat(db: Queryable, botId: string, chatId: string): Promise<DbConversation | undefined> {
  const rows = await db.query<DbConversation>(
    `select ${CONVERSATION_COLUMNS} from conversations c where c.bot_id = $1 and c.chat_id = $2`,
    [botId, chatId],
  );
  return rows[0];
}

export async function findConversationById(db: Queryable, id: string): Promise<DbConversation | undefined> {
  const rows = await db.query<DbConversation>(`select ${CONVERSATION_COLUMNS} from conversations c where c.id = $1`, [id]);
  return rows[0];
}

/** Records a new message on the conversation and applies the status move it causes. */
export async function touchConversation(
  db: Queryable, id: string, messageId: string, at: Date, status: ConversationStatus, contactId: string | null,
): Promise<DbConversation> {
  const rows = await db.query<DbConversation>(
    `update conversations c set message_count = c.message_count + 1, last_message_id = $2,
       last_message_at = greatest(c.last_message_at, $3::timestamptz), status = $4,
       contact_id = coalesce(c.contact_id, $5), updated_at = now()
     where c.id = $1 returning ${CONVERSATION_COLUMNS}`,
    [id, messageId, at, status, contactId],
  );
  return rows[0]!;
}

export async function updateConversationMeta(
  db: Queryable, id: string, status: ConversationStatus | null, operatorNote: string | null,
): Promise<DbConversation> {
  const rows = await db.query<DbConversation>(
    `update conversations c set status = coalesce($2, c.status), operator_note = coalesce($3, c.operator_note), updated_at = now()
     where c.id = $1 returning ${CONVERSATION_COLUMNS}`,
    [id, status, operatorNote],
  );
  return rows[0]!;
}

/** Hands the conversation to a human (by a user, or by the bot itself when byUserId is null) or back to the bot. */
export async function updateHandledBy(db: Queryable, id: string, handledBy: HandledBy, byUserId: string | null): Promise<DbConversation> {
  const rows = await db.query<DbConversation>(
    `update conversations c set handled_by = $2, handed_over_by = $3,
       handed_over_at = case when $2 = 'human' then now() else null end, updated_at = now()
     where c.id = $1 returning ${CONVERSATION_COLUMNS}`,
    [id, handledBy, handledBy === "human" ? byUserId : null],
  );
  return rows[0]!;
}
