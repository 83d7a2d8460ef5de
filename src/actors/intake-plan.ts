// The pure half of a group commit: given a batch of incoming messages of one bot and what
// the database holds for them (read under the bot row's lock), decide every row to write,
// every number to hand out and what each request is answered. No I/O, so it is tested alone.
import type { StoredFile } from "../core/files.ts";
import { newRowId } from "../core/ids.ts";
import type { DbBot } from "../db/bots.ts";
import type { ContactFields, DbContact } from "../db/contacts.ts";
import type { DbConversation } from "../db/conversations.ts";
import type { DbBotCounters } from "../db/intake.ts";
import type { ContactWrite, ConversationTouch, ConversationWrite, IncomingMessageWrite, NumberShift } from "../db/intake-write.ts";
import type { DbMessage } from "../db/messages.ts";
import { runtimeMessage } from "../db/view.ts";
import { reportsToBot } from "./conversation.ts";

export interface IncomingInput {
  bot: DbBot;
  channel: string;
  text: string;
  createdAt: Date;
  contactKey: string;
  contact: ContactFields;
  fromId: string | null;
  metadata: Record<string, unknown>;
  clientMessageId: string | null;
  attachments?: StoredFile[];
  /** The channel's server signed the request: only then may it change a contact another chat holds. */
  verified?: boolean;
}

export interface IntakeItem {
  chatId: string;
  input: IncomingInput;
}

/** What one request of the batch gets. */
export type Outcome =
  /** A new message: `messages[index]` of the plan. */
  | { kind: "new"; index: number }
  /** Its client_message_id was already used by a committed message. */
  | { kind: "repeat"; message: DbMessage }
  /** An earlier request of this same batch carries its client_message_id. */
  | { kind: "same-as"; item: number }
  /** The chat is a conversation of another channel: its identity is fixed when it is created. */
  | { kind: "other-channel"; channel: string };

export interface NewMessage {
  /** The row as it will be stored. */
  message: DbMessage;
  chatId: string;
  contactKey: string;
  /** Null while a human has taken the conversation over: the bot is not told (handoff). */
  update: { update_id: number; payload: Record<string, unknown> } | null;
}

export interface BatchPlan {
  outcomes: Outcome[];
  contacts: ContactWrite[];
  conversations: ConversationWrite[];
  messages: NewMessage[];
  /** The batch's updates in update_id order (messages of taken-over conversations have none). */
  updates: { update_id: number; payload: Record<string, unknown> }[];
  messageWrites: IncomingMessageWrite[];
  touches: ConversationTouch[];
  /** Chats whose conversation this batch creates. */
  createdChats: Set<string>;
  /** Status of each conversation (by chat) before the batch; `new` for created ones. */
  statusBefore: Map<string, string>;
  /** The counters the plan numbered from (what the look-ups, or the process's memory, said). */
  base: DbBotCounters;
  /** The counters after the batch. */
  counters: DbBotCounters;
}

export interface Found {
  counters: DbBotCounters;
  twins: DbMessage[];
  contacts: DbContact[];
  conversations: DbConversation[];
}

const FIELDS = ["externalUserId", "firstName", "lastName", "name", "email", "phone"] as const;

interface ContactState {
  write: ContactWrite;
  /** A new contact, or a known one the batch tells more about. */
  dirty: boolean;
}

function contactState(known: DbContact | undefined, key: string): ContactState {
  return {
    dirty: !known,
    write: {
      id: known?.id ?? newRowId(), number: known?.number ?? 0, key,
      externalUserId: known?.external_user_id ?? null, firstName: known?.first_name ?? null, lastName: known?.last_name ?? null,
      name: known?.name ?? null, email: known?.email ?? null, phone: known?.phone ?? null,
    },
  };
}

/** Fills in what this message tells (never erases), as the upsert will. */
function learn(state: ContactState, fields: ContactFields): void {
  for (const f of FIELDS) {
    const value = fields[f];
    if (value !== null && value !== state.write[f]) {
      state.write[f] = value;
      state.dirty = true;
    }
  }
}

/** The contact as a runtime message shows its sender (before the database returns it). */
const asContact = (w: ContactWrite, botId: string): DbContact => ({
  id: w.id, bot_id: botId, number: w.number, contact_key: w.key, external_user_id: w.externalUserId, first_name: w.firstName,
  last_name: w.lastName, name: w.name, email: w.email, phone: w.phone, created_at: new Date(0), attributes: {},
});

export function planBatch(items: IntakeItem[], found: Found): BatchPlan {
  const bot = items[0]!.input.bot;
  const counters = { ...found.counters };
  // Idempotency keys are per chat: a key another chat used is a different message and reveals nothing of it.
  const twins = new Map(found.twins.map((m) => [`${m.conversation_id}\n${m.client_message_id}`, m]));
  const known = {
    contacts: new Map(found.contacts.map((c) => [c.contact_key, c])),
    conversations: new Map(found.conversations.map((c) => [c.chat_id, c])),
  };
  const firstWithClientId = new Map<string, number>();
  const contacts = new Map<string, ContactState>();
  const conversationIds = new Map<string, string>();
  const channels = new Map<string, string>();
  const plan: BatchPlan = {
    outcomes: [], contacts: [], conversations: [], messages: [], updates: [], messageWrites: [], touches: [],
    createdChats: new Set(), statusBefore: new Map(), base: found.counters, counters,
  };
  const touches = new Map<string, ConversationTouch>();

  items.forEach(({ chatId, input }, i) => {
    const chatChannel = channels.get(chatId) ?? known.conversations.get(chatId)?.channel;
    if (chatChannel !== undefined && chatChannel !== input.channel) return plan.outcomes.push({ kind: "other-channel", channel: chatChannel });
    const clientId = input.clientMessageId;
    if (clientId !== null) {
      const twin = twins.get(`${known.conversations.get(chatId)?.id}\n${clientId}`);
      if (twin) return plan.outcomes.push({ kind: "repeat", message: twin });
      const earlier = firstWithClientId.get(`${chatId}\n${clientId}`);
      if (earlier !== undefined) return plan.outcomes.push({ kind: "same-as", item: earlier });
      firstWithClientId.set(`${chatId}\n${clientId}`, i);
    }
    let contact = contacts.get(input.contactKey);
    const knownContact = known.contacts.get(input.contactKey);
    if (!contact) {
      contact = contactState(knownContact, input.contactKey);
      if (!knownContact) contact.write.number = ++counters.last_contact_number;
      contacts.set(input.contactKey, contact);
    }
    // An unverified sender naming someone's user id joins that contact but never renames it.
    if (!knownContact || input.verified || known.conversations.get(chatId)?.contact_id === knownContact.id) learn(contact, input.contact);

    let conversationId = conversationIds.get(chatId);
    if (!conversationId) {
      const existing = known.conversations.get(chatId);
      conversationId = existing?.id ?? newRowId();
      conversationIds.set(chatId, conversationId);
      plan.statusBefore.set(chatId, existing?.status ?? "new");
      channels.set(chatId, existing?.channel ?? input.channel);
      if (!existing) {
        plan.createdChats.add(chatId);
        plan.conversations.push({
          id: conversationId, number: ++counters.last_conversation_number, chatId, channel: input.channel, contactId: contact.write.id,
          messageCount: 0, lastMessageId: "", latestAt: input.createdAt, earliestAt: input.createdAt,
        });
      }
    }
    const message: DbMessage = {
      id: newRowId(), bot_id: bot.id, conversation_id: conversationId, message_id: ++counters.last_message_id, direction: "in",
      sender: "user", contact_id: contact.write.id, from_id: input.fromId, text: input.text, reply_markup: null,
      metadata: input.metadata, client_message_id: clientId, created_at: input.createdAt, edited_at: null, deleted_at: null, entities: null,
      attachments: input.attachments ?? [], private: false,
    };
    const existing = known.conversations.get(chatId);
    const updateId = !existing || reportsToBot(existing) ? ++counters.last_update_id : null;
    plan.outcomes.push({ kind: "new", index: plan.messages.length });
    plan.messages.push({ message, chatId, contactKey: input.contactKey, update: updateId === null ? null : { update_id: updateId, payload: {} } });
    plan.messageWrites.push({
      id: message.id, conversationId, messageId: message.message_id, contactId: contact.write.id, fromId: input.fromId,
      text: input.text, metadata: input.metadata, clientMessageId: clientId, createdAt: input.createdAt,
      attachments: input.attachments ?? [], channel: channels.get(chatId)!,
    });
    const touch = touches.get(conversationId);
    if (touch) {
      touch.added++;
      touch.lastMessageId = message.id;
      if (input.createdAt > touch.latestAt) touch.latestAt = input.createdAt;
      if (input.createdAt < touch.earliestAt) touch.earliestAt = input.createdAt;
    } else {
      touches.set(conversationId, {
        id: conversationId, added: 1, lastMessageId: message.id, latestAt: input.createdAt, earliestAt: input.createdAt, contactId: contact.write.id,
      });
    }
  });

  // Payloads show each sender as the batch leaves them (all its messages told us).
  for (const m of plan.messages) {
    const contact = asContact(contacts.get(m.contactKey)!.write, bot.id);
    const conversation = { chat_id: m.chatId, channel: channels.get(m.chatId)! };
    if (m.update) m.update.payload = { update_id: m.update.update_id, message: runtimeMessage(m.message, conversation, contact) };
  }
  plan.updates = plan.messages.flatMap((m) => (m.update ? [m.update] : []));
  plan.contacts = [...contacts.values()].filter((c) => c.dirty).map((c) => c.write);
  // A conversation the batch creates is inserted with its activity; only known ones are touched.
  for (const created of plan.conversations) {
    const touch = touches.get(created.id)!;
    Object.assign(created, { messageCount: touch.added, lastMessageId: touch.lastMessageId, latestAt: touch.latestAt, earliestAt: touch.earliestAt });
    touches.delete(created.id);
  }
  plan.touches = [...touches.values()];
  return plan;
}

/**
 * Moves a committed plan's message_ids and update_ids (its messages, its updates' payloads, its
 * counters) by what other writers numbered since the counters it was made from, as the write
 * moved the stored rows (db/intake-write.ts writeIncomingBatch).
 */
export function shiftPlanNumbers(plan: BatchPlan, shift: NumberShift): void {
  if (shift.messages === 0 && shift.updates === 0) return;
  for (const m of plan.messages) {
    m.message.message_id += shift.messages;
    if (!m.update) continue;
    m.update.update_id += shift.updates;
    const { message, ...rest } = m.update.payload as { message: Record<string, unknown> };
    m.update.payload = { ...rest, update_id: m.update.update_id, message: { ...message, message_id: String(m.message.message_id) } };
  }
  plan.counters = { ...plan.counters, last_message_id: plan.counters.last_message_id + shift.messages, last_update_id: plan.counters.last_update_id + shift.updates };
}
