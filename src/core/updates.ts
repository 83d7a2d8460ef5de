// The Update and Message shapes a bot's backend sees (docs/design.md §5); db/view.ts builds them
// from stored rows.
import type { FileRecord } from "./files.ts";

/** Telegram's entity types; offsets and lengths count UTF-16 code units, as Telegram's do. */
export const ENTITY_TYPES = [
  "mention", "hashtag", "cashtag", "bot_command", "url", "email", "phone_number", "bold", "italic", "underline",
  "strikethrough", "spoiler", "blockquote", "expandable_blockquote", "code", "pre", "text_link", "text_mention", "custom_emoji",
] as const;
export type EntityType = (typeof ENTITY_TYPES)[number];

export interface MessageEntity {
  type: EntityType;
  offset: number;
  length: number;
  /** text_link only. */
  url?: string;
  /** pre only: the code's language. */
  language?: string;
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
  /** Files with signed links; `text` is then their caption. */
  attachments?: FileRecord[];
}

/** The update kinds that carry a message of the chat, in the order a payload is searched for it. */
export const MESSAGE_UPDATE_KINDS = ["message", "edited_message", "operator_message"] as const;
export type MessageUpdateKind = (typeof MESSAGE_UPDATE_KINDS)[number];
/** Every update kind a bot can receive (and name in allowed_updates). */
export const UPDATE_KINDS = [...MESSAGE_UPDATE_KINDS, "callback_query"] as const;
export type UpdateKind = (typeof UPDATE_KINDS)[number];

/** A visitor's press of an inline button (Telegram's CallbackQuery, native ids as strings). */
export interface RuntimeCallbackQuery {
  id: string;
  from: RuntimeSender;
  /** The bot's message the button was under. */
  message: RuntimeMessage;
  /** Stable per chat, as Telegram's: the chat_id's conversation, not a secret. */
  chat_instance: string;
  data: string;
}

export const kindOfUpdate = (payload: Record<string, unknown>): UpdateKind | undefined => UPDATE_KINDS.find((k) => payload[k] !== undefined);

/** The message an update is about: the message itself, or the one under a pressed button. */
export function messageOfUpdate(payload: Record<string, unknown>): RuntimeMessage | undefined {
  const kind = kindOfUpdate(payload);
  if (!kind) return undefined;
  if (kind === "callback_query") return (payload[kind] as RuntimeCallbackQuery).message;
  return payload[kind] as RuntimeMessage;
}

/** A leading /command (optionally /command@botname) is marked, as Telegram does. */
const COMMAND = /^\/[A-Za-z0-9_]{1,32}(?:@[A-Za-z0-9_]{1,64})?/;

export function commandEntities(text: string): MessageEntity[] | undefined {
  const match = COMMAND.exec(text);
  return match ? [{ type: "bot_command", offset: 0, length: match[0].length }] : undefined;
}

export const unixSeconds = (at: Date): number => Math.floor(at.getTime() / 1000);
