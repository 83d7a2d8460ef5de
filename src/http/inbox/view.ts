// Row → API record conversions shared by the inbox, the public history and the events.
import type { DbContact } from "../../db/contacts.ts";
import type { DbConversation } from "../../db/conversations.ts";
import type { DbMessage } from "../../db/messages.ts";
import type { Contact, Conversation, Message } from "./model.ts";

export const toContact = (row: DbContact): Contact => ({
  id: row.id,
  number: row.number,
  external_user_id: row.external_user_id,
  first_name: row.first_name,
  last_name: row.last_name,
  name: row.name,
  email: row.email,
  phone: row.phone,
  created_at: row.created_at.toISOString(),
});

export const toMessage = (row: DbMessage, conversation: Pick<DbConversation, "chat_id" | "channel">): Message => ({
  id: row.id,
  message_id: String(row.message_id),
  conversation_id: row.conversation_id,
  chat_id: conversation.chat_id,
  channel: conversation.channel,
  direction: row.direction,
  sender: row.sender,
  text: row.text,
  reply_markup: row.reply_markup,
  metadata: row.metadata,
  created_at: row.created_at.toISOString(),
  edited_at: row.edited_at?.toISOString() ?? null,
});

export const toConversation = (row: DbConversation, contact: DbContact | undefined, lastMessage: DbMessage | undefined): Conversation => ({
  id: row.id,
  bot_id: row.bot_id,
  channel: row.channel,
  chat_id: row.chat_id,
  number: row.number,
  status: row.status,
  operator_note: row.operator_note,
  contact: contact ? toContact(contact) : null,
  last_message: lastMessage && !lastMessage.deleted_at ? toMessage(lastMessage, row) : null,
  message_count: row.message_count,
  created_at: row.created_at.toISOString(),
  updated_at: row.updated_at.toISOString(),
  last_message_at: row.last_message_at.toISOString(),
});
