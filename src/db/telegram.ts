// Lookups of the Telegram-compatible facade: Telegram clients name chats, users and
// messages by per-bot integers (conversation number, contact number, message_id), so the
// facade maps them to the native rows here, joined so one call answers one need.
import type { Queryable } from "./driver.ts";

/** A conversation as a Telegram private chat: the number and the person it is with. */
export interface TelegramChatRow {
  id: string;
  number: number;
  chat_id: string;
  channel: string;
  owner_id: string;
  contact_number: number | null;
  first_name: string | null;
  last_name: string | null;
  name: string | null;
}

const CHAT_COLUMNS = `cv.id, cv.number, cv.chat_id, cv.channel, cv.owner_id,
  cc.number as contact_number, cc.first_name, cc.last_name, cc.name`;

export async function findTelegramChatByNumber(db: Queryable, botId: string, number: number): Promise<TelegramChatRow | undefined> {
  const rows = await db.query<TelegramChatRow>(
    `select ${CHAT_COLUMNS} from conversations cv left join contacts cc on cc.id = cv.contact_id
     where cv.bot_id = $1 and cv.number = $2`,
    [botId, number],
  );
  return rows[0];
}

export async function findTelegramChatByChatId(db: Queryable, botId: string, chatId: string): Promise<TelegramChatRow | undefined> {
  const rows = await db.query<TelegramChatRow>(
    `select ${CHAT_COLUMNS} from conversations cv left join contacts cc on cc.id = cv.contact_id
     where cv.bot_id = $1 and cv.chat_id = $2`,
    [botId, chatId],
  );
  return rows[0];
}

/** What a stored message needs to be written in Telegram's shape: its chat and its sender. */
export interface TelegramMessageRef {
  message_id: number;
  sender: "user" | "bot" | "operator";
  deleted_at: Date | null;
  chat_number: number;
  chat_id: string;
  chat_first_name: string | null;
  chat_last_name: string | null;
  chat_name: string | null;
  chat_contact_number: number | null;
  /** The message's own sender contact; null on outgoing messages. */
  from_number: number | null;
  from_first_name: string | null;
  from_last_name: string | null;
  from_name: string | null;
}

/** One round trip for a whole getUpdates batch (or a single edit/delete target). */
export async function findTelegramMessageRefs(db: Queryable, botId: string, messageIds: number[]): Promise<TelegramMessageRef[]> {
  if (messageIds.length === 0) return [];
  return db.query<TelegramMessageRef>(
    `select m.message_id, m.sender, m.deleted_at, cv.number as chat_number, cv.chat_id,
       cc.first_name as chat_first_name, cc.last_name as chat_last_name, cc.name as chat_name,
       cc.number as chat_contact_number, sc.number as from_number,
       sc.first_name as from_first_name, sc.last_name as from_last_name, sc.name as from_name
     from messages m
     join conversations cv on cv.id = m.conversation_id
     left join contacts cc on cc.id = cv.contact_id
     left join contacts sc on sc.id = m.contact_id
     where m.bot_id = $1 and m.message_id = any($2::bigint[])`,
    [botId, messageIds],
  );
}
