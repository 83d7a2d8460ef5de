// Erasure and retention: deleting a contact's or an old conversation's records for good.
// Everything a conversation owns cascades from it (messages, callback and mail deliveries,
// button presses, assignment and read state); what does not cascade is deleted here by the
// conversations' chat ids: files uploaded in those chats, outbox rows and table-backed
// update-log rows whose payload names those chats, delivery attempts of their messages.
import type { Queryable } from "./driver.ts";

export interface DbErasable {
  id: string;
  bot_id: string;
  email: string | null;
}

export interface ErasedCounts {
  conversations: number;
  messages: number;
  files: number;
}

export async function findContactForErasure(db: Queryable, contactId: string): Promise<DbErasable | undefined> {
  const [row] = await db.query<DbErasable>(`select id, bot_id, email from contacts where id = $1`, [contactId]);
  return row;
}

/** The chat id an update's payload is about, whatever its kind (core/updates.ts). */
const PAYLOAD_CHAT = `coalesce(payload #>> '{message,chat,id}', payload #>> '{edited_message,chat,id}',
  payload #>> '{operator_message,chat,id}', payload #>> '{callback_query,message,chat,id}')`;

/**
 * Deletes the given conversations of one bot and everything tied to them; returns the ids of
 * files whose bytes the caller removes from the store after commit.
 */
export async function eraseConversations(tx: Queryable, botId: string, conversationIds: string[], extraMessageFilter?: { contactId: string }): Promise<ErasedCounts & { fileIds: string[]; chatIds: string[] }> {
  const chats = (await tx.query<{ chat_id: string }>(`select chat_id from conversations where bot_id = $1 and id = any($2::uuid[])`, [botId, conversationIds])).map((r) => r.chat_id);
  const messageIds = (await tx.query<{ id: string }>(
    `select id from messages where bot_id = $1 and (conversation_id = any($2::uuid[]) or ($3::uuid is not null and contact_id = $3::uuid))`,
    [botId, conversationIds, extraMessageFilter?.contactId ?? null],
  )).map((r) => r.id);
  const fileIds = (await tx.query<{ id: string }>(
    `select f.id from files f where f.bot_id = $1 and (f.chat_id = any($2::text[])
       or exists (select 1 from messages m where m.id = any($3::uuid[]) and m.attachments @> jsonb_build_array(jsonb_build_object('file_id', f.id::text))))`,
    [botId, chats, messageIds],
  )).map((r) => r.id);
  await tx.query(`delete from delivery_attempts where bot_id = $1 and message_id = any($2::uuid[])`, [botId, messageIds]);
  await tx.query(`delete from outbox where bot_id = $1 and (${PAYLOAD_CHAT} = any($2::text[]) or message_ref = any($3::uuid[]))`, [botId, chats, messageIds]);
  // Published updates kept against a power cut of NATS (sql/330): a repair must not bring them back.
  await tx.query(`delete from outbox_kept where bot_id = $1 and (${PAYLOAD_CHAT} = any($2::text[]) or message_ref = any($3::uuid[]))`, [botId, chats, messageIds]);
  await tx.query(`delete from update_log where bot_id = $1 and ${PAYLOAD_CHAT} = any($2::text[])`, [botId, chats]);
  await tx.query(`delete from messages where id = any($1::uuid[])`, [messageIds]);
  await tx.query(`delete from conversations where bot_id = $1 and id = any($2::uuid[])`, [botId, conversationIds]);
  await tx.query(`delete from files where id = any($1::uuid[])`, [fileIds]);
  return { conversations: conversationIds.length, messages: messageIds.length, files: fileIds.length, fileIds, chatIds: chats };
}

export async function contactConversationIds(db: Queryable, botId: string, contactId: string): Promise<string[]> {
  const rows = await db.query<{ id: string }>(`select id from conversations where bot_id = $1 and contact_id = $2`, [botId, contactId]);
  return rows.map((r) => r.id);
}

/** Mail the reader refused names its sender: an erased contact's address goes too. */
export async function deleteRefusedMailFrom(tx: Queryable, botId: string, email: string): Promise<void> {
  await tx.query(`delete from mail_refused where bot_id = $1 and lower(sender) like '%' || lower($2) || '%'`, [botId, email]);
}

/** Contacts of the given conversations (read before they are deleted). */
export async function contactsOfConversations(tx: Queryable, conversationIds: string[]): Promise<string[]> {
  const rows = await tx.query<{ contact_id: string }>(`select distinct contact_id from conversations where id = any($1::uuid[]) and contact_id is not null`, [conversationIds]);
  return rows.map((r) => r.contact_id);
}

/** Of `contactIds`, deletes those left with no conversation and no message: retention leaves no name behind. */
export async function deleteContactsLeftAlone(tx: Queryable, contactIds: string[]): Promise<void> {
  await tx.query(
    `delete from contacts c where c.id = any($1::uuid[])
       and not exists (select 1 from conversations v where v.contact_id = c.id)
       and not exists (select 1 from messages m where m.contact_id = c.id)`,
    [contactIds],
  );
}

export async function deleteContact(tx: Queryable, contactId: string): Promise<void> {
  await tx.query(`delete from contacts where id = $1`, [contactId]);
}

export async function recordErasure(tx: Queryable, botId: string, userId: string | null, reason: "request" | "retention", counts: ErasedCounts): Promise<void> {
  await tx.query(
    `insert into erasures (bot_id, erased_by, reason, conversations, messages, files) values ($1, $2, $3, $4, $5, $6)`,
    [botId, userId, reason, counts.conversations, counts.messages, counts.files],
  );
}

/** Bots with a retention setting, and their closed conversations last changed before their cutoff. */
export async function expiredConversations(db: Queryable, now: Date, limit: number): Promise<Array<{ bot_id: string; ids: string[] }>> {
  const rows = await db.query<{ bot_id: string; id: string }>(
    `select c.bot_id, c.id from bots b join conversations c on c.bot_id = b.id and c.status = 'closed'
      where b.retention_days is not null and c.updated_at < $1::timestamptz - make_interval(days => b.retention_days)
      order by c.updated_at limit $2`,
    [now.toISOString(), limit],
  );
  const byBot = new Map<string, string[]>();
  for (const r of rows) byBot.set(r.bot_id, [...(byBot.get(r.bot_id) ?? []), r.id]);
  return [...byBot].map(([bot_id, ids]) => ({ bot_id, ids }));
}

export async function setRetentionDays(db: Queryable, botId: string, days: number | null): Promise<void> {
  await db.query(`update bots set retention_days = $2 where id = $1`, [botId, days]);
}

export async function retentionDays(db: Queryable, botId: string): Promise<number | null> {
  const [row] = await db.query<{ retention_days: number | null }>(`select retention_days from bots where id = $1`, [botId]);
  return row?.retention_days ?? null;
}
