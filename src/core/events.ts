// What a committed change must tell the rest of the system, carried out after commit:
// events for live views and push, updates for the bot's backend (its outbox row is
// already committed, so a crash before `appendUpdates` loses nothing).
import type { Conversation, Message } from "./records.ts";

/** Events about a conversation, each carrying its snapshot. */
export type ConversationEventKind =
  | "conversation_created"
  | "message_created"
  | "conversation_updated"
  | "message_updated"
  | "message_deleted";

export interface PlatformEvent {
  kind: ConversationEventKind;
  owner_id: string;
  bot_id: string;
  conversation: Conversation;
  message?: Message;
}

/** The bot's "typing" chat action (the facade's sendChatAction): a notification for live views, no snapshot. */
export interface TypingEvent {
  kind: "typing";
  owner_id: string;
  bot_id: string;
  conversation_id: string;
  chat_id: string;
  channel: string;
}

/** An operator types in the inbox: the widget shows "typing…" (not stored). */
export interface OperatorTypingEvent {
  kind: "operator_typing";
  owner_id: string;
  bot_id: string;
  conversation_id: string;
  chat_id: string;
  channel: string;
  user_id: string;
}

/** Kinds published on users.<user>.events (userEventsSubject). */
export type UserEvent =
  /** The user read a conversation (in another tab or device): its unread count now. */
  | { kind: "conversation_read"; user_id: string; bot_id: string; conversation_id: string; unread_count: number }
  /** The user joined or left a bot, or it was renamed or deleted: reload the bot list (bot_id absent: found by a periodic re-check). */
  | { kind: "bots_changed"; user_id: string; bot_id?: string }
  /** A token of the user was logged out or their password changed: open streams re-check theirs. */
  | { kind: "session_revoked"; user_id: string };

/** The bot's answerCallbackQuery: the widget shows its text as a toast or an alert and stops the button's spinner. */
export interface CallbackAnsweredEvent {
  kind: "callback_answered";
  owner_id: string;
  bot_id: string;
  chat_id: string;
  channel: string;
  callback_query_id: string;
  text: string;
  show_alert: boolean;
  /** Telegram's url answer (opens a game or t.me link there); the widget offers it when it is http(s). */
  url: string | null;
}

/** An update whose outbox row is committed; the dispatcher publishes it from there. */
export interface CommittedUpdate {
  botId: string;
  updateId: number;
}

/** What goes into the update log: the identity and the Update itself. */
export interface PendingUpdate extends CommittedUpdate {
  payload: Record<string, unknown>;
  /** The payload as JSON text when the writer already encoded it (its outbox row): the log stores these very bytes. */
  json?: string;
}

export interface Effects {
  events: PlatformEvent[];
  updates: CommittedUpdate[];
}

export const noEffects = (): Effects => ({ events: [], updates: [] });

/** The inbox stream's own notices: `ready` once the replay is out (its cursor resumes), `reset`: reload. */
export type InboxStreamControl = { kind: "ready"; cursor: string } | { kind: "reset"; reason: string };

/**
 * Everything GET /api/inbox/stream sends, each as an SSE event named by `kind` whose data
 * is the rest. Replayed conversation snapshots also carry `assignee`.
 */
export type InboxStreamEvent = PlatformEvent | TypingEvent | OperatorTypingEvent | CallbackAnsweredEvent | UserEvent | InboxStreamControl | PresenceEvent;

/** A member's presence changed: published once per bot they belong to, for that team's cabinets. */
export interface PresenceEvent {
  kind: "presence_changed";
  owner_id: string;
  bot_id: string;
  user_id: string;
  presence: "online" | "away" | "offline";
}
