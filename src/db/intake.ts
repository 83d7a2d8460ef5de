// The reads of a group commit (actors/intake.ts): the lock of its bots and its look-ups, each
// for a whole batch of incoming messages in one statement (arrays unnested server-side), so a
// batch costs the same handful of round trips whether it holds one message or hundreds. Its
// write is db/intake-write.ts.
import { CONTACT_COLUMNS, type DbContact } from "./contacts.ts";
import { CONVERSATION_COLUMNS, type DbConversation } from "./conversations.ts";
import type { Queryable } from "./driver.ts";
import { MESSAGE_COLUMNS, type DbMessage } from "./messages.ts";

export interface DbBotCounters {
  last_message_id: number;
  last_update_id: number;
  last_conversation_number: number;
  last_contact_number: number;
}

/** A bot's counters as its lock returns them. */
export interface DbLockedBot extends DbBotCounters {
  id: string;
}

/**
 * Locks the rows of the bots for the rest of the transaction, in id order, and reads their
 * counters. Every writer of a bot's numbered rows takes its bot's lock first, so while it is
 * held no other transaction can add that bot's contacts, conversations, messages or updates:
 * what the batch reads next is complete, and the numbers it hands out are contiguous. The
 * order (the sort runs below the row locking) is what lets two processes' group commits lock
 * overlapping sets of bots without a deadlock. A bot that is gone has no row.
 */
export async function lockBots(db: Queryable, botIds: string[]): Promise<DbLockedBot[]> {
  return db.query<DbLockedBot>(
    `select id, last_message_id, last_update_id, last_conversation_number, last_contact_number
     from bots where id = any($1::uuid[]) order by id for update`,
    [botIds],
  );
}

/**
 * The messages carrying one of the (bot $1[i], client id $2[i]) pairs, one index probe per pair:
 * `offset 0` keeps the lateral subquery a probe of the (bot, client id) index parameterised on
 * both columns. Flattened into a join, or written `= any($2)`, the generic plan PostgreSQL keeps
 * probed by bot alone and read every message of the bot that has a client id (the hot-bot bench
 * fell from 3,446 to 144 msgs/s in three runs as the bot's messages grew).
 */
const TWINS_BY_CLIENT_ID = `select m.* from unnest($1::uuid[], $2::text[]) as k(bot_id, client_id)
     cross join lateral (select ${MESSAGE_COLUMNS} from messages m
       where m.bot_id = k.bot_id and m.client_message_id = k.client_id and m.client_message_id is not null offset 0) m`;

export async function findMessagesByClientIds(db: Queryable, botId: string, clientIds: string[]): Promise<DbMessage[]> {
  if (clientIds.length === 0) return [];
  return db.query<DbMessage>(TWINS_BY_CLIENT_ID, [clientIds.map(() => botId), clientIds]);
}

/** A key of one bot: a client message id, a contact key or a chat id. */
export interface BotKey {
  botId: string;
  key: string;
}

/** What a group commit reads under its bots' locks, in one statement (findIntakeState); each row names its bot. */
export interface DbIntakeState {
  /** Committed messages carrying one of the batch's client_message_ids. */
  twins: DbMessage[];
  /** The batch's senders that are known contacts. */
  contacts: DbContact[];
  /** The batch's chats that are known conversations. */
  conversations: DbConversation[];
}

/**
 * A group commit's three look-ups (its client_message_ids, its senders, its chats, each of its
 * bot) as ONE statement: one plan, one executor start and one answer instead of three per bot.
 * Sent after the lock statement, never inside it: a statement's snapshot is taken when it
 * starts, so reads in the statement that waits for the lock would miss what the lock's previous
 * holder committed. Each client id, sender and chat is one index probe, whatever the planner
 * knows (PGlite never gathers statistics, and without them it scanned every contact of the bot
 * for "= any(...)"), so the generic plan PostgreSQL keeps for the statement reads by index
 * whatever the tables held then (client ids: TWINS_BY_CLIENT_ID).
 */
export async function findIntakeState(db: Queryable, clientIds: BotKey[], senders: BotKey[], chats: BotKey[]): Promise<DbIntakeState> {
  const rows = await db.query<{ twins: Json<DbMessage>[] | null; contacts: Json<DbContact>[] | null; conversations: Json<DbConversation>[] | null }>(
    `select (select json_agg(t) from (${TWINS_BY_CLIENT_ID}) t) as twins,
       (select json_agg(c) from unnest($3::uuid[], $4::text[]) as k(bot_id, key)
          cross join lateral (select ${CONTACT_COLUMNS} from contacts where bot_id = k.bot_id and contact_key = k.key limit 1) c) as contacts,
       (select json_agg(v) from unnest($5::uuid[], $6::text[]) as k(bot_id, chat_id)
          cross join lateral (select ${CONVERSATION_COLUMNS} from conversations c where c.bot_id = k.bot_id and c.chat_id = k.chat_id limit 1) v) as conversations`,
    [...botKeyParams(clientIds), ...botKeyParams(senders), ...botKeyParams(chats)],
  );
  const row = rows[0];
  return {
    twins: (row?.twins ?? []).map(reviveMessage),
    contacts: (row?.contacts ?? []).map(reviveContact),
    conversations: (row?.conversations ?? []).map(reviveConversation),
  };
}

const botKeyParams = (keys: BotKey[]) => [keys.map((k) => k.botId), keys.map((k) => k.key)];

export async function findConversationsByIds(db: Queryable, ids: string[]): Promise<DbConversation[]> {
  if (ids.length === 0) return [];
  return db.query<DbConversation>(`select ${CONVERSATION_COLUMNS} from conversations c where c.id = any($1::uuid[])`, [ids]);
}

/** A row as json_agg renders it: timestamps are ISO strings. */
export type Json<T> = { [K in keyof T]: T[K] extends Date ? string : T[K] extends Date | null ? string | null : T[K] };

export const reviveContact = (c: Json<DbContact>): DbContact => ({ ...c, created_at: new Date(c.created_at) });
const orNull = (d: string | null) => (d === null ? null : new Date(d));
const reviveMessage = (m: Json<DbMessage>): DbMessage => ({
  ...m, created_at: new Date(m.created_at), edited_at: orNull(m.edited_at), deleted_at: orNull(m.deleted_at),
});
export const reviveConversation = (c: Json<DbConversation>): DbConversation => ({
  ...c, last_message_at: new Date(c.last_message_at), created_at: new Date(c.created_at), updated_at: new Date(c.updated_at),
  handed_over_at: orNull(c.handed_over_at),
});
