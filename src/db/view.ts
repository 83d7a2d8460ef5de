// Row → record conversions: API records (inbox, public history, events) and the messages of
// the Updates a bot's backend sees.
import { VERIFIED_CONTACT_PREFIX, type Contact, type Conversation, type Message } from "../core/records.ts";
import { commandEntities, unixSeconds, type RuntimeMessage, type RuntimeSender } from "../core/updates.ts";
import type { DbContact } from "./contacts.ts";
import type { DbConversation } from "./conversations.ts";
import type { DbMessage } from "./messages.ts";
import { withLink } from "../file-links.ts";

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
  verified: row.contact_key.startsWith(VERIFIED_CONTACT_PREFIX),
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
  entities: row.entities,
  reply_markup: row.reply_markup,
  metadata: row.metadata,
  attachments: (row.attachments ?? []).map(withLink),
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
  handled_by: row.handled_by,
  handed_over_by: row.handed_over_by,
  handed_over_at: row.handed_over_at?.toISOString() ?? null,
  created_at: row.created_at.toISOString(),
  updated_at: row.updated_at.toISOString(),
  last_message_at: row.last_message_at.toISOString(),
});

export function runtimeMessage(
  message: DbMessage,
  conversation: Pick<DbConversation, "chat_id" | "channel">,
  contact: DbContact | undefined,
  sender?: RuntimeSender,
): RuntimeMessage {
  const out: RuntimeMessage = {
    message_id: String(message.message_id),
    date: unixSeconds(message.created_at),
    chat: { id: conversation.chat_id, type: "private", channel: conversation.channel },
    from: sender ?? {
      id: message.from_id ?? contact?.id ?? "",
      first_name: contact?.first_name ?? contact?.name ?? null,
      last_name: contact?.last_name ?? null,
    },
    text: message.text,
  };
  const entities = message.entities ?? commandEntities(message.text);
  if (entities) out.entities = entities;
  const { form, ...metadata } = message.metadata;
  if (Object.keys(metadata).length) out.metadata = metadata;
  if (form && typeof form === "object") out.form = form as Record<string, unknown>;
  if (message.reply_markup) out.reply_markup = message.reply_markup;
  if (message.edited_at) out.edit_date = unixSeconds(message.edited_at);
  if (message.attachments?.length) out.attachments = message.attachments.map(withLink);
  return out;
}
