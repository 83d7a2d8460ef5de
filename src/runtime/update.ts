// The Update and Message shapes a bot's backend sees (DESIGN §5), built from stored rows.
import type { DbContact } from "../db/contacts.ts";
import type { DbConversation } from "../db/conversations.ts";
import type { DbMessage } from "../db/messages.ts";

export interface MessageEntity {
  type: "bot_command";
  offset: number;
  length: number;
}

export interface RuntimeSender {
  id: string;
  first_name: string | null;
  last_name: string | null;
  is_bot?: boolean;
  username?: string;
}

/** As the native API writes it: message_id is a string (spec 2.5); the facade converts. */
export interface RuntimeMessage {
  message_id: string;
  date: number;
  chat: { id: string; type: "private"; channel: string };
  from: RuntimeSender;
  text: string;
  entities?: MessageEntity[];
  metadata?: Record<string, unknown>;
  form?: Record<string, unknown>;
  reply_markup?: Record<string, unknown>;
  edit_date?: number;
}

export type UpdateKind = "message" | "edited_message" | "operator_message";

/** A leading /command (optionally /command@botname) is marked, as Telegram does. */
const COMMAND = /^\/[A-Za-z0-9_]{1,32}(?:@[A-Za-z0-9_]{1,64})?/;

export function commandEntities(text: string): MessageEntity[] | undefined {
  const match = COMMAND.exec(text);
  return match ? [{ type: "bot_command", offset: 0, length: match[0].length }] : undefined;
}

export const unixSeconds = (at: Date): number => Math.floor(at.getTime() / 1000);

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
  const entities = commandEntities(message.text);
  if (entities) out.entities = entities;
  const { form, ...metadata } = message.metadata;
  if (Object.keys(metadata).length) out.metadata = metadata;
  if (form && typeof form === "object") out.form = form as Record<string, unknown>;
  if (message.reply_markup) out.reply_markup = message.reply_markup;
  if (message.edited_at) out.edit_date = unixSeconds(message.edited_at);
  return out;
}
