// What a committed change must tell the rest of the system, carried out after commit:
// events for live views and push, updates for the bot's backend (its outbox row is
// already committed, so a crash before `appendUpdates` loses nothing).
import type { Conversation, Message } from "./http/inbox/model.ts";

export type EventKind =
  | "conversation_created"
  | "message_created"
  | "conversation_updated"
  | "message_updated"
  | "message_deleted";

export interface PlatformEvent {
  kind: EventKind;
  owner_id: string;
  bot_id: string;
  conversation: Conversation;
  message?: Message;
}

/** An update whose outbox row is committed; the dispatcher publishes it from there. */
export interface CommittedUpdate {
  botId: string;
  updateId: number;
}

/** What goes into the update log: the identity and the Update itself. */
export interface PendingUpdate extends CommittedUpdate {
  payload: Record<string, unknown>;
}

export interface Effects {
  events: PlatformEvent[];
  updates: CommittedUpdate[];
}

export const noEffects = (): Effects => ({ events: [], updates: [] });

/** Subject of an event on the bus: events.<owner>.<kind> (DESIGN §2). */
export const eventSubject = (event: Pick<PlatformEvent, "owner_id" | "kind">) => `events.${event.owner_id}.${event.kind}`;
