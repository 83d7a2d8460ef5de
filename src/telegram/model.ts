// The Telegram Bot API's own shapes, as the facade writes them (docs/design.md §11). Only the
// fields the server can fill; extras a Telegram client does not know are harmless
// (every library keeps or ignores unknown fields).
import type { MessageEntity, MessageUpdateKind } from "../core/updates.ts";
import type { DbBot } from "../db/bots.ts";
import type { TelegramDeps } from "./deps.ts";

export interface TgUser {
  id: number;
  is_bot: boolean;
  first_name: string;
  last_name?: string;
  username?: string;
}

export interface TgBotUser extends TgUser {
  can_join_groups: boolean;
  can_read_all_group_messages: boolean;
  supports_inline_queries: boolean;
  can_connect_to_business: boolean;
  has_main_web_app: boolean;
}

export interface TgChat {
  id: number;
  type: "private";
  first_name: string;
  last_name?: string;
  /** Ours: the channel the chat lives on (widget, email, …). */
  channel: string;
}

export interface TgMessage {
  message_id: number;
  from: TgUser;
  chat: TgChat;
  date: number;
  /** Absent on a message with a file: its text is then `caption`. */
  text?: string;
  entities?: MessageEntity[];
  caption?: string;
  caption_entities?: unknown[];
  photo?: unknown;
  document?: unknown;
  audio?: unknown;
  video?: unknown;
  voice?: unknown;
  animation?: unknown;
  media_group_id?: string;
  edit_date?: number;
  reply_markup?: Record<string, unknown>;
  /** Telegram's field for who wrote a message on behalf of someone else: set on operator messages. */
  author_signature?: string;
  /** Ours: what the source sent with the message (page_url, client ids). */
  metadata?: Record<string, unknown>;
  /** Ours: the raw form submission of a site-form message. */
  form?: Record<string, unknown>;
}

/** The native update kinds, all passed through under their own names. */

export interface TgCallbackQuery {
  id: string;
  from: TgUser;
  message: TgMessage;
  chat_instance: string;
  data: string;
}

export type TgUpdate = { update_id: number } & Partial<Record<MessageUpdateKind, TgMessage>> & { callback_query?: TgCallbackQuery };

/** Names Telegram needs where our contact has none (User.first_name is never empty there). */
export const UNNAMED_FIRST_NAME = "Guest";
/** author_signature of operator replies: they are written by a person on the bot's side. */
export const OPERATOR_SIGNATURE = "Operator";

/** sendChatAction's accepted actions, as Telegram lists them; anything else is a 400 there. */
export const CHAT_ACTIONS = new Set([
  "typing", "upload_photo", "record_video", "upload_video", "record_voice", "upload_voice", "upload_document",
  "choose_sticker", "find_location", "record_video_note", "upload_video_note",
]);

export type Params = Record<string, unknown>;

/** What a method answers: the envelope's `result`, and sometimes a sentence beside it. */
export interface TelegramResult {
  result: unknown;
  /** Telegram adds a sentence to some successes ("Webhook is already deleted"). */
  description?: string;
}

/** One facade method: Telegram's parameters in, the envelope's result out. */
export type Method = (deps: TelegramDeps, bot: DbBot, params: Params) => Promise<TelegramResult>;
