// The API records every layer speaks (inbox, public history, events, callbacks), as plain
// types. http/*/model.ts declares the same shapes as TypeBox schemas for validation and
// OpenAPI, and checks at compile time that the two stay identical.

import type { MessageEntity } from "./updates.ts";

export const HANDLERS = ["bot", "human"] as const;
export type HandledBy = (typeof HANDLERS)[number];

export const STATUSES = ["new", "open", "waiting", "closed"] as const;
export type Status = (typeof STATUSES)[number];

export const CHANNEL_TYPES = ["web", "website", "widget", "sitecms", "crm", "email", "mobile_app", "custom_api"] as const;
export type ChannelType = (typeof CHANNEL_TYPES)[number];

/** Channels whose outgoing messages are POSTed to a callback_url (DESIGN §5). */
export const CALLBACK_CHANNELS: readonly ChannelType[] = ["custom_api", "crm", "mobile_app", "email"];

export interface Contact {
  id: string;
  number: number;
  external_user_id: string | null;
  first_name: string | null;
  last_name: string | null;
  name: string | null;
  email: string | null;
  phone: string | null;
  created_at: string;
}

export interface Message {
  id: string;
  message_id: string;
  conversation_id: string;
  chat_id: string;
  channel: string;
  direction: "in" | "out";
  sender: "user" | "bot" | "operator";
  text: string;
  /** Telegram's formatting of `text`; null when it is plain. */
  entities: MessageEntity[] | null;
  reply_markup: Record<string, unknown> | null;
  metadata: Record<string, unknown>;
  created_at: string;
  edited_at: string | null;
  delivery?: "pending" | "delivered" | "failed" | null;
}

export interface Conversation {
  id: string;
  bot_id: string;
  channel: string;
  chat_id: string;
  number: number;
  status: Status;
  operator_note: string;
  contact: Contact | null;
  last_message: Message | null;
  message_count: number;
  /** "human" while an operator has taken the conversation over from the bot (handoff). */
  handled_by: HandledBy;
  /** The user who took it over; null when the bot handed it over itself, or while the bot handles it. */
  handed_over_by: string | null;
  handed_over_at: string | null;
  created_at: string;
  updated_at: string;
  last_message_at: string;
}

/** Another conversation of the same contact (the inbox's contact panel). */
export interface ContactConversation {
  id: string;
  chat_id: string;
  channel: string;
  status: Status;
  last_message_at: string;
}

/** The member a conversation is assigned to. */
export interface Assignee {
  user_id: string;
  email: string;
}

/**
 * A conversation as one user's inbox shows it: who handles it and how many incoming messages
 * that user has not read. Live events from the write path carry a plain Conversation (no
 * `assignee` key: unchanged); assignment events carry `assignee`.
 */
export type InboxConversation = Conversation & { assignee: Assignee | null; unread_count: number };

/** Compile-time proof that a schema's static type and a record type are the same shape. */
export type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
