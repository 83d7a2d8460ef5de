// The API records every layer speaks (inbox, public history, events, callbacks), as plain
// types. http/*/model.ts declares the same shapes as TypeBox schemas for validation and
// OpenAPI, and checks at compile time that the two stay identical.

import type { MessageEntity } from "./updates.ts";
import type { FileRecord } from "./files.ts";

export const HANDLERS = ["bot", "human"] as const;
export type HandledBy = (typeof HANDLERS)[number];

export const STATUSES = ["new", "open", "waiting", "closed"] as const;
export type Status = (typeof STATUSES)[number];

/**
 * The reopen rule, owned here and nowhere else: an incoming message (or a button press)
 * reopens a conversation the operator had parked or closed. The intake's batch update in SQL
 * takes this list as a parameter.
 */
export const REOPENED_BY_INCOMING: readonly Status[] = ["waiting", "closed"];
export const statusAfterIncoming = (status: Status): Status => (REOPENED_BY_INCOMING.includes(status) ? "open" : status);

export const CHANNEL_TYPES = ["web", "website", "widget", "sitecms", "crm", "email", "mobile_app", "custom_api"] as const;
export type ChannelType = (typeof CHANNEL_TYPES)[number];

/** Which settings a channel's config holds (domain/channels.ts has the schema of each). */
export type ChannelConfigKind = "widget" | "callback" | "form" | "email" | "none";

export interface ChannelTraits {
  /** A browser chat: its visitor reads the chat's history and live stream (GET /api/messages, the widget stream). */
  publicHistory: boolean;
  /** Outgoing messages are POSTed to the channel's callback_url (a channel callback, docs/design.md §5). */
  callback: boolean;
  /** Messages come from the integrator's own server, which can sign them (require_signature). */
  signable: boolean;
  config: ChannelConfigKind;
}

/** Every channel and what it does: the one place a channel's behaviour is decided. */
export const CHANNELS: Readonly<Record<ChannelType, ChannelTraits>> = {
  web: { publicHistory: true, callback: false, signable: false, config: "none" },
  website: { publicHistory: true, callback: false, signable: false, config: "none" },
  widget: { publicHistory: true, callback: false, signable: false, config: "widget" },
  sitecms: { publicHistory: false, callback: false, signable: true, config: "form" },
  crm: { publicHistory: false, callback: true, signable: true, config: "callback" },
  email: { publicHistory: false, callback: true, signable: true, config: "email" },
  mobile_app: { publicHistory: false, callback: true, signable: true, config: "callback" },
  custom_api: { publicHistory: false, callback: true, signable: true, config: "callback" },
};

const isChannelType = (channel: string): channel is ChannelType => Object.hasOwn(CHANNELS, channel);

/** Channels whose outgoing messages go to a channel callback (SQL filters take the list). */
export const CALLBACK_CHANNELS: readonly ChannelType[] = CHANNEL_TYPES.filter((type) => CHANNELS[type].callback);

/** Whether a conversation's visitor may read its history (browser chats only). */
export const hasPublicHistory = (channel: string): boolean => isChannelType(channel) && CHANNELS[channel].publicHistory;

/** Whether the channel's messages may be signed by the integrator's server. */
export const isSignable = (channel: string): boolean => isChannelType(channel) && CHANNELS[channel].signable;

/** Whether the channel's outgoing messages are channel callbacks. */
export const hasCallback = (channel: string): boolean => isChannelType(channel) && CHANNELS[channel].callback;

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
  /** A widget user the site vouched for (user_hash signed with the bot's identity secret). */
  verified: boolean;
}

/** A verified widget user's chat: derived by the server from the user id; no public writer may name one. */
export const VERIFIED_CHAT_PREFIX = "verified:";
/** A verified user's contact key: apart from the keys unverified claims produce (`ext:`, `chat:`). */
export const VERIFIED_CONTACT_PREFIX = "verified:";

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
  /** The message's files with signed links; `text` is then their caption and may be empty. */
  attachments: FileRecord[];
  created_at: string;
  edited_at: string | null;
  delivery?: "pending" | "delivered" | "failed" | null;
  /** Why an outgoing mail failed or waits for a retry. */
  delivery_error?: string | null;
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
export type InboxConversation = Conversation & { assignee: Assignee | null; unread_count: number; snoozed_until?: string | null };

/** Compile-time proof that a schema's static type and a record type are the same shape. */
export type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
