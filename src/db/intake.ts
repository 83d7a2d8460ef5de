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

/**
 * The messages of bot $1 carrying one of the client ids in $2, one index probe per id: `offset 0`
 * keeps the lateral subquery a probe of the (bot, client id) index parameterised on both columns.
 * Flattened into a join, or written `= any($2)`, the generic plan PostgreSQL keeps probed by bot
 * alone and read every message of the bot that has a client id (the hot-bot bench fell from
 * 3,446 to 144 msgs/s in three runs as the bot's messages grew).
 */
const TWINS_BY_CLIENT_ID = `select m.* from unnest($2::text[]) as k(client_id)
     cross join lateral (select ${MESSAGE_COLUMNS} from messages m
       where m.bot_id = $1 and m.client_message_id = k.client_id and m.client_message_id is not null offset 0) m`;

export async function findMessagesByClientIds(db: Queryable, botId: string, clientIds: string[]): Promise<DbMessage[]> {
  if (clientIds.length === 0) return [];
  return db.query<DbMessage>(TWINS_BY_CLIENT_ID, [botId, clientIds]);
}

/** What a batch reads under the bot row's lock, in one statement (findIntakeState). */
export interface DbIntakeState {
  /** Committed messages of the bot carrying one of the batch's client_message_ids. */
  twins: DbMessage[];
  /** The batch's senders that are known contacts. */
  contacts: DbContact[];
  /** The batch's chats that are known conversations. */
  conversations: DbConversation[];
}

/**
 * A batch's three look-ups (its client_message_ids, its senders, its chats) as ONE statement:
 * one plan, one executor start and one answer instead of three. Sent after the lock statement,
 * never inside it: a statement's snapshot is taken when it starts, so reads in the statement
 * that waits for the lock would miss what the lock's previous holder committed. Each client
 * id, sender and chat is one index probe, whatever the planner knows (PGlite never gathers
 * statistics, and without them it scanned every contact of the bot for "= any(...)"), so the
 * generic plan PostgreSQL keeps for the statement reads by index whatever the tables held
 * then (client ids: TWINS_BY_CLIENT_ID).
 */
export async function findIntakeState(db: Queryable, botId: string, clientIds: string[], keys: string[], chats: string[]): Promise<DbIntakeState> {
  const rows = await db.query<{ twins: Json<DbMessage>[] | null; contacts: Json<DbContact>[] | null; conversations: Json<DbConversation>[] | null }>(
    `select (select json_agg(t) from (${TWINS_BY_CLIENT_ID}) t) as twins,
       (select json_agg(c) from unnest($3::text[]) as k(key)
          cross join lateral (select ${CONTACT_COLUMNS} from contacts where bot_id = $1 and contact_key = k.key limit 1) c) as contacts,
       (select json_agg(v) from unnest($4::text[]) as k(chat_id)
          cross join lateral (select ${CONVERSATION_COLUMNS} from conversations c where c.bot_id = $1 and c.chat_id = k.chat_id limit 1) v) as conversations`,
    [botId, clientIds, keys, chats],
  );
  const row = rows[0];
  return {
    twins: (row?.twins ?? []).map(reviveMessage),
    contacts: (row?.contacts ?? []).map(reviveContact),
    conversations: (row?.conversations ?? []).map(reviveConversation),
  };
}

export async function findConversationsByIds(db: Queryable, ids: string[]): Promise<DbConversation[]> {
  if (ids.length === 0) return [];
  return db.query<DbConversation>(`select ${CONVERSATION_COLUMNS} from conversations c where c.id = any($1::uuid[])`, [ids]);
}

export interface ContactWrite extends ContactFields {
  id: string;
  number: number;
  key: string;
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
  /** The earliest of the batch's messages in it: its report row's first incoming message. */
  earliestAt: Date;
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
  /** Its conversation's channel, for the report's count of incoming messages per channel. */
  channel: string;
}

export interface ConversationTouch {
  id: string;
  /** Messages the batch adds to it. */
  added: number;
  lastMessageId: string;
  latestAt: Date;
  /** The earliest of the batch's messages in it (the report's first incoming message, if earlier). */
  earliestAt: Date;
  contactId: string;
}

/** Everything one group commit writes; any list may be empty. */
export interface IncomingBatchWrite {
  botId: string;
  ownerId: string;
  counters: DbBotCounters;
  contacts: ContactWrite[];
  conversations: ConversationWrite[];
  messages: IncomingMessageWrite[];
  /** Outbox rows (payload: JSON text); none when the update log lives in the same database. */
  outbox: { updateId: number; payload: string }[];
}

export interface IncomingBatchWritten {
  /** New contacts and known ones the batch told more about, as stored. */
  contacts: DbContact[];
  /** The conversations the batch created, as stored. */
  conversations: DbConversation[];
}

/**
 * A batch's inserts in ONE statement (data-modifying CTEs): the server plans, starts and
 * answers one statement per batch instead of five, which is most of a small batch's cost.
 * All parts see the same snapshot and write disjoint rows; foreign keys are checked at the
 * end of the statement, so a message may name a conversation or contact inserted beside
 * it. The text never varies (empty arrays write nothing), so it is prepared once per
 * connection, and PostgreSQL soon keeps one generic plan for it: which is why the touch of
 * known conversations is not part of it (a generic plan made while the table was small
 * seq-scanned conversations for it, measured), see touchConversationsForIncoming.
 */
export async function writeIncomingBatch(db: Queryable, w: IncomingBatchWrite): Promise<IncomingBatchWritten> {
  const rows = await db.query<{ contacts: Json<DbContact>[] | null; conversations: Json<DbConversation>[] | null }>(
    `with counters as (
       update bots set last_message_id = $3, last_update_id = $4, last_conversation_number = $5, last_contact_number = $6 where id = $1
     ), upserted as (${UPSERT_CONTACTS}), created as (${INSERT_CONVERSATIONS}), inserted as (${INSERT_MESSAGES}
     ), queued as (${INSERT_OUTBOX}), reported as (${INSERT_REPORT_CONVERSATIONS}), counted as (${COUNT_REPORT_QUARTERS}
     ), rolled_up as (${ROLLUP_WRITTEN})
     select (select json_agg(u) from upserted u) as contacts, (select json_agg(c) from created c) as conversations,
            (select flag from rolled_up) as report_rollup`,
    [
      w.botId, w.ownerId, w.counters.last_message_id, w.counters.last_update_id, w.counters.last_conversation_number, w.counters.last_contact_number,
      ...contactParams(w.contacts), ...conversationParams(w.conversations), ...messageParams(w.messages),
      w.outbox.map((r) => r.updateId), w.outbox.map((r) => r.payload),
      w.conversations.map((r) => r.earliestAt.toISOString()), w.messages.map((r) => r.channel),
    ],
  );
  const row = rows[0];
  return {
    contacts: (row?.contacts ?? []).map(reviveContact),
    conversations: (row?.conversations ?? []).map(reviveConversation),
  };
}

/** A row as json_agg renders it: timestamps are ISO strings. */
type Json<T> = { [K in keyof T]: T[K] extends Date ? string : T[K] extends Date | null ? string | null : T[K] };

const reviveContact = (c: Json<DbContact>): DbContact => ({ ...c, created_at: new Date(c.created_at) });
const orNull = (d: string | null) => (d === null ? null : new Date(d));
const reviveMessage = (m: Json<DbMessage>): DbMessage => ({
  ...m, created_at: new Date(m.created_at), edited_at: orNull(m.edited_at), deleted_at: orNull(m.deleted_at),
});
const reviveConversation = (c: Json<DbConversation>): DbConversation => ({
  ...c, last_message_at: new Date(c.last_message_at), created_at: new Date(c.created_at), updated_at: new Date(c.updated_at),
  handed_over_at: c.handed_over_at === null ? null : new Date(c.handed_over_at),
});

// Parameters $1 bot, $2 owner, $3–$6 counters, then each part's arrays in the order below.

/** New contacts, and known ones the batch tells more about (fields are filled in, never erased). */
const UPSERT_CONTACTS = `insert into contacts (id, bot_id, owner_id, number, contact_key, external_user_id, first_name, last_name, name, email, phone)
     select v.id, $1::uuid, $2::uuid, v.number, v.key, v.ext, v.first, v.last, v.name, v.email, v.phone
     from unnest($7::uuid[], $8::int8[], $9::text[], $10::text[], $11::text[], $12::text[], $13::text[], $14::text[], $15::text[])
       as v(id, number, key, ext, first, last, name, email, phone)
     on conflict (bot_id, contact_key) do update set
       external_user_id = coalesce(excluded.external_user_id, contacts.external_user_id),
       first_name = coalesce(excluded.first_name, contacts.first_name),
       last_name = coalesce(excluded.last_name, contacts.last_name),
       name = coalesce(excluded.name, contacts.name),
       email = coalesce(excluded.email, contacts.email),
       phone = coalesce(excluded.phone, contacts.phone),
       updated_at = now()
     returning ${CONTACT_COLUMNS}`;
const contactParams = (rows: ContactWrite[]) => [rows.map((r) => r.id), rows.map((r) => r.number), rows.map((r) => r.key),
  rows.map((r) => r.externalUserId), rows.map((r) => r.firstName), rows.map((r) => r.lastName), rows.map((r) => r.name),
  rows.map((r) => r.email), rows.map((r) => r.phone)];

/**
 * Written with their activity already counted: an update right after the insert would write
 * every index of the row a second time (last_message_at is indexed, so it is never HOT).
 */
const INSERT_CONVERSATIONS = `insert into conversations as c (id, bot_id, owner_id, number, chat_id, channel, contact_id, message_count, last_message_id, last_message_at)
     select v.id, $1::uuid, $2::uuid, v.number, v.chat_id, v.channel, v.contact_id, v.message_count, v.last_message_id, greatest(now(), v.latest_at)
     from unnest($16::uuid[], $17::int8[], $18::text[], $19::text[], $20::uuid[], $21::int4[], $22::uuid[], $23::timestamptz[])
       as v(id, number, chat_id, channel, contact_id, message_count, last_message_id, latest_at)
     returning ${CONVERSATION_COLUMNS}`;
const conversationParams = (rows: ConversationWrite[]) => [rows.map((r) => r.id), rows.map((r) => r.number), rows.map((r) => r.chatId),
  rows.map((r) => r.channel), rows.map((r) => r.contactId), rows.map((r) => r.messageCount), rows.map((r) => r.lastMessageId),
  rows.map((r) => r.latestAt.toISOString())];

const INSERT_MESSAGES = `insert into messages as m (id, bot_id, owner_id, conversation_id, message_id, direction, sender, contact_id, from_id, text,
                                metadata, client_message_id, created_at, attachments)
     select v.id, $1::uuid, $2::uuid, v.conversation_id, v.message_id, 'in', 'user', v.contact_id, v.from_id, v.text,
            v.metadata::jsonb, v.client_message_id, v.created_at, v.attachments::jsonb
     from unnest($24::uuid[], $25::uuid[], $26::int8[], $27::uuid[], $28::text[], $29::text[], $30::text[], $31::text[], $32::timestamptz[], $33::text[])
       as v(id, conversation_id, message_id, contact_id, from_id, text, metadata, client_message_id, created_at, attachments)`;
const messageParams = (rows: IncomingMessageWrite[]) => [rows.map((r) => r.id), rows.map((r) => r.conversationId), rows.map((r) => r.messageId),
  rows.map((r) => r.contactId), rows.map((r) => r.fromId), rows.map((r) => r.text), rows.map((r) => r.metadata),
  rows.map((r) => r.clientMessageId), rows.map((r) => r.createdAt.toISOString()), rows.map((r) => r.attachments)];

/**
 * One update per known conversation for the whole batch; an incoming message reopens one
 * (core/records.ts REOPENED_BY_INCOMING). Its own statement, custom-planned with the batch's
 * ids, so it always probes the primary key.
 */
export async function touchConversationsForIncoming(db: Queryable, rows: ConversationTouch[]): Promise<DbConversation[]> {
  if (rows.length === 0) return [];
  return db.query<DbConversation>(
    `with touched as (update conversations c set message_count = c.message_count + v.added, last_message_id = v.last_message_id,
       last_message_at = greatest(c.last_message_at, v.latest_at),
       status = case when c.status::text = any($6::text[]) then 'open' else c.status end,
       contact_id = coalesce(c.contact_id, v.contact_id), updated_at = now()
     from unnest($1::uuid[], $2::int4[], $3::uuid[], $4::timestamptz[], $5::uuid[]) as v(id, added, last_message_id, latest_at, contact_id)
     -- The any() gives the planner the primary key even without statistics (PGlite has none:
     -- it hash-joined every conversation of every bot).
     where c.id = v.id and c.id = any($1::uuid[])
     returning ${CONVERSATION_COLUMNS}),
     -- The report's first incoming message, when the batch's is earlier (sql/260: the trigger leaves it to us).
     reported as (update report_conversations r set first_in_at = v.first_in from unnest($1::uuid[], $7::timestamptz[]) as v(id, first_in)
       where r.conversation_id = v.id and r.conversation_id = any($1::uuid[]) and (r.first_in_at is null or v.first_in < r.first_in_at))
     select * from touched`,
    [rows.map((r) => r.id), rows.map((r) => r.added), rows.map((r) => r.lastMessageId), rows.map((r) => r.latestAt.toISOString()),
      rows.map((r) => r.contactId), REOPENED_BY_INCOMING, rows.map((r) => r.earliestAt.toISOString())],
  );
}

const INSERT_OUTBOX = `insert into outbox (bot_id, update_id, payload) select $1::uuid, v.update_id, v.payload::jsonb
     from unnest($34::int8[], $35::text[]) as v(update_id, payload)`;

// Reports (sql/220): what the triggers on conversations and messages would write for this
// batch, written here instead (sql/260): its messages are all incoming and public, so a new
// conversation's report row starts with its first incoming message (one insert, where the
// triggers made an insert and an update), and the quarter counts are one upsert per channel
// and quarter. $36: each new conversation's earliest message (as $16), $37: each message's
// channel (as $24).
const INSERT_REPORT_CONVERSATIONS = `insert into report_conversations (conversation_id, bot_id, channel, created_at, first_in_at)
     select c.id, c.bot_id, c.channel, c.created_at, v.first_in
     from created c join unnest($16::uuid[], $36::timestamptz[]) as v(id, first_in) on v.id = c.id`;
const COUNT_REPORT_QUARTERS = `insert into report_incoming_quarters as q (bot_id, channel, quarter, incoming)
     select $1::uuid, v.channel, date_bin('15 minutes', v.created_at, timestamptz '2001-01-01 00:00:00+00'), count(*)
     from unnest($37::text[], $32::timestamptz[]) as v(channel, created_at)
     group by 2, 3
     on conflict (bot_id, quarter, channel) do update set incoming = q.incoming + excluded.incoming`;
/** Tells the report triggers this transaction wrote its roll-up (they return at once); read by the outer select, so it runs. */
const ROLLUP_WRITTEN = `select set_config('botinbox.report_rollup', 'written', true) as flag`;
