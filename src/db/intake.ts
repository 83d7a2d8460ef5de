// The queries of a group commit (actors/intake.ts): each takes or writes a whole batch of
// incoming messages of one bot in one statement (arrays unnested server-side), so a batch
// costs the same handful of round trips whether it holds one message or hundreds.
import { REOPENED_BY_INCOMING } from "../core/records.ts";
import { CONTACT_COLUMNS, type ContactFields, type DbContact } from "./contacts.ts";
import { CONVERSATION_COLUMNS, type DbConversation } from "./conversations.ts";
import type { Queryable } from "./driver.ts";
import { MESSAGE_COLUMNS, type DbMessage } from "./messages.ts";

export interface DbBotCounters {
  last_message_id: number;
  last_update_id: number;
  last_conversation_number: number;
  last_contact_number: number;
}

/**
 * Locks the bot row for the rest of the transaction and reads its counters. Every writer of
 * a bot's numbered rows takes this lock first, so while it is held no other transaction can
 * add this bot's contacts, conversations, messages or updates: what the batch reads next is
 * complete, and the numbers it hands out are contiguous. Undefined when the bot is gone.
 */
export async function lockBotCounters(db: Queryable, botId: string): Promise<DbBotCounters | undefined> {
  const rows = await db.query<DbBotCounters>(
    `select last_message_id, last_update_id, last_conversation_number, last_contact_number from bots where id = $1 for update`,
    [botId],
  );
  return rows[0];
}

export async function setBotCounters(db: Queryable, botId: string, c: DbBotCounters): Promise<void> {
  await db.query(
    `update bots set last_message_id = $2, last_update_id = $3, last_conversation_number = $4, last_contact_number = $5 where id = $1`,
    [botId, c.last_message_id, c.last_update_id, c.last_conversation_number, c.last_contact_number],
  );
}

export async function findMessagesByClientIds(db: Queryable, botId: string, clientIds: string[]): Promise<DbMessage[]> {
  if (clientIds.length === 0) return [];
  return db.query<DbMessage>(
    `select ${MESSAGE_COLUMNS} from messages m where m.bot_id = $1 and m.client_message_id = any($2::text[])`,
    [botId, clientIds],
  );
}

export async function findContactsByKeys(db: Queryable, botId: string, keys: string[]): Promise<DbContact[]> {
  return db.query<DbContact>(
    // One unique-index probe per key, whatever the planner knows (PGlite never gathers
    // statistics, and without them it scanned every contact of the bot for "= any(...)").
    `select c.* from unnest($2::text[]) as k(key)
     cross join lateral (select ${CONTACT_COLUMNS} from contacts where bot_id = $1 and contact_key = k.key limit 1) c`,
    [botId, keys],
  );
}

export async function findConversationsByIds(db: Queryable, ids: string[]): Promise<DbConversation[]> {
  if (ids.length === 0) return [];
  return db.query<DbConversation>(`select ${CONVERSATION_COLUMNS} from conversations c where c.id = any($1::uuid[])`, [ids]);
}

export async function findConversationsByChats(db: Queryable, botId: string, chatIds: string[]): Promise<DbConversation[]> {
  return db.query<DbConversation>(
    // As for contacts: one unique-index probe per chat.
    `select v.* from unnest($2::text[]) as k(chat_id)
     cross join lateral (select ${CONVERSATION_COLUMNS} from conversations c where c.bot_id = $1 and c.chat_id = k.chat_id limit 1) v`,
    [botId, chatIds],
  );
}

export interface ContactWrite extends ContactFields {
  id: string;
  number: number;
  key: string;
}

/** New contacts, and known ones the batch tells more about (fields are filled in, never erased). */
export async function upsertContacts(db: Queryable, botId: string, ownerId: string, rows: ContactWrite[]): Promise<DbContact[]> {
  if (rows.length === 0) return [];
  return db.query<DbContact>(
    `insert into contacts (id, bot_id, owner_id, number, contact_key, external_user_id, first_name, last_name, name, email, phone)
     select v.id, $1::uuid, $2::uuid, v.number, v.key, v.ext, v.first, v.last, v.name, v.email, v.phone
     from unnest($3::uuid[], $4::int8[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[])
       as v(id, number, key, ext, first, last, name, email, phone)
     on conflict (bot_id, contact_key) do update set
       external_user_id = coalesce(excluded.external_user_id, contacts.external_user_id),
       first_name = coalesce(excluded.first_name, contacts.first_name),
       last_name = coalesce(excluded.last_name, contacts.last_name),
       name = coalesce(excluded.name, contacts.name),
       email = coalesce(excluded.email, contacts.email),
       phone = coalesce(excluded.phone, contacts.phone),
       updated_at = now()
     returning ${CONTACT_COLUMNS}`,
    [botId, ownerId, rows.map((r) => r.id), rows.map((r) => r.number), rows.map((r) => r.key), rows.map((r) => r.externalUserId),
      rows.map((r) => r.firstName), rows.map((r) => r.lastName), rows.map((r) => r.name), rows.map((r) => r.email), rows.map((r) => r.phone)],
  );
}

export interface ConversationWrite {
  id: string;
  number: number;
  chatId: string;
  channel: string;
  contactId: string;
  /** The batch's messages in it: a new conversation is written once, with its activity, never touched after. */
  messageCount: number;
  lastMessageId: string;
  latestAt: Date;
}

/**
 * Written with their activity already counted: an update right after the insert would write
 * every index of the row a second time (last_message_at is indexed, so it is never HOT).
 */
export async function insertConversations(db: Queryable, botId: string, ownerId: string, rows: ConversationWrite[]): Promise<DbConversation[]> {
  if (rows.length === 0) return [];
  return db.query<DbConversation>(
    `insert into conversations as c (id, bot_id, owner_id, number, chat_id, channel, contact_id, message_count, last_message_id, last_message_at)
     select v.id, $1::uuid, $2::uuid, v.number, v.chat_id, v.channel, v.contact_id, v.message_count, v.last_message_id, greatest(now(), v.latest_at)
     from unnest($3::uuid[], $4::int8[], $5::text[], $6::text[], $7::uuid[], $8::int4[], $9::uuid[], $10::timestamptz[])
       as v(id, number, chat_id, channel, contact_id, message_count, last_message_id, latest_at)
     returning ${CONVERSATION_COLUMNS}`,
    [botId, ownerId, rows.map((r) => r.id), rows.map((r) => r.number), rows.map((r) => r.chatId), rows.map((r) => r.channel),
      rows.map((r) => r.contactId), rows.map((r) => r.messageCount), rows.map((r) => r.lastMessageId), rows.map((r) => r.latestAt.toISOString())],
  );
}

export interface IncomingMessageWrite {
  id: string;
  conversationId: string;
  messageId: number;
  contactId: string;
  fromId: string | null;
  text: string;
  /** JSON text */
  metadata: string;
  clientMessageId: string | null;
  createdAt: Date;
  /** JSON text of the message's files */
  attachments: string;
}

export async function insertIncomingMessages(db: Queryable, botId: string, ownerId: string, rows: IncomingMessageWrite[]): Promise<void> {
  await db.query(
    `insert into messages as m (id, bot_id, owner_id, conversation_id, message_id, direction, sender, contact_id, from_id, text,
                                metadata, client_message_id, created_at, attachments)
     select v.id, $1::uuid, $2::uuid, v.conversation_id, v.message_id, 'in', 'user', v.contact_id, v.from_id, v.text,
            v.metadata::jsonb, v.client_message_id, v.created_at, v.attachments::jsonb
     from unnest($3::uuid[], $4::uuid[], $5::int8[], $6::uuid[], $7::text[], $8::text[], $9::text[], $10::text[], $11::timestamptz[], $12::text[])
       as v(id, conversation_id, message_id, contact_id, from_id, text, metadata, client_message_id, created_at, attachments)
`,
    [botId, ownerId, rows.map((r) => r.id), rows.map((r) => r.conversationId), rows.map((r) => r.messageId), rows.map((r) => r.contactId),
      rows.map((r) => r.fromId), rows.map((r) => r.text), rows.map((r) => r.metadata), rows.map((r) => r.clientMessageId),
      rows.map((r) => r.createdAt.toISOString()), rows.map((r) => r.attachments)],
  );
}

export interface ConversationTouch {
  id: string;
  /** Messages the batch adds to it. */
  added: number;
  lastMessageId: string;
  latestAt: Date;
  contactId: string;
}

/** One update per known conversation for the whole batch; an incoming message reopens one (core/records.ts REOPENED_BY_INCOMING). */
export async function touchConversationsForIncoming(db: Queryable, rows: ConversationTouch[]): Promise<DbConversation[]> {
  if (rows.length === 0) return [];
  return db.query<DbConversation>(
    `update conversations c set message_count = c.message_count + v.added, last_message_id = v.last_message_id,
       last_message_at = greatest(c.last_message_at, v.latest_at),
       status = case when c.status::text = any($6::text[]) then 'open' else c.status end,
       contact_id = coalesce(c.contact_id, v.contact_id), updated_at = now()
     from unnest($1::uuid[], $2::int4[], $3::uuid[], $4::timestamptz[], $5::uuid[]) as v(id, added, last_message_id, latest_at, contact_id)
     -- The any() gives the planner the primary key even without statistics (PGlite has none:
     -- it hash-joined every conversation of every bot).
     where c.id = v.id and c.id = any($1::uuid[])
     returning ${CONVERSATION_COLUMNS}`,
    [rows.map((r) => r.id), rows.map((r) => r.added), rows.map((r) => r.lastMessageId), rows.map((r) => r.latestAt.toISOString()),
      rows.map((r) => r.contactId), REOPENED_BY_INCOMING],
  );
}
