// ConversationActor: serialises the changes to one conversation that are not incoming
// messages (bot and operator replies, the bot's edits and deletions, status moves, notes;
// incoming messages are group-committed per bot by actors/intake.ts). One per (bot, chat_id);
// each message is one database transaction whose effects are returned for dispatch
// after commit.
import type { Db, Queryable } from "../db/driver.ts";
import type { DbBot } from "../db/bots.ts";
import { findContactsByIds, type DbContact } from "../db/contacts.ts";
import {
  findConversationByChat, findConversationById, touchConversation, updateConversationMeta, updateHandledBy,
  type ConversationStatus, type DbConversation, type HandledBy,
} from "../db/conversations.ts";
import {
  findMessagesByIds, insertMessage, markMessageDeleted, updateMessageText, type DbMessage,
} from "../db/messages.ts";
import { nextBotNumbers } from "../db/counters.ts";
import { insertOutbox } from "../db/outbox.ts";
import { noEffects, type ConversationEventKind, type Effects } from "../core/events.ts";
import { runtimeMessage, toConversation, toMessage } from "../db/view.ts";
import { enqueueCallback } from "../db/webhooks.ts";
import { enqueueMail } from "../db/mail.ts";
import { CALLBACK_CHANNELS, statusAfterIncoming } from "../core/records.ts";
import type { MessageEntity, RuntimeCallbackQuery, RuntimeSender } from "../core/updates.ts";
import { insertCallbackQuery, pruneCallbackQueries } from "../db/callback_queries.ts";
import { CALLBACK_ANSWER_WINDOW_SECONDS } from "../core/limits.ts";
import type { StoredFile } from "../core/files.ts";

export interface Accepted {
  message: DbMessage;
  conversation: DbConversation;
  /** true when an earlier request with the same client_message_id made this message */
  repeated: boolean;
}

/**
 * Handoff: whether the conversation's messages, operator replies and button presses are
 * reported to the bot (as outbox rows → updates). False while a human has taken it over.
 */
export const reportsToBot = (c: Pick<DbConversation, "handled_by">): boolean => c.handled_by === "bot";

/** A reply from the operator or the bot means someone is handling it. */
const statusAfterReply = (s: ConversationStatus): ConversationStatus => (s === "new" ? "open" : s);

export class ConversationActor {
  constructor(
    private readonly db: Db,
    readonly botId: string,
    readonly chatId: string,
  ) {}

  /** Stores an operator's or the bot's outgoing message and moves `new` to `open`. */
  async storeOutgoing(
    bot: Pick<DbBot, "id" | "owner_id">,
    sender: "operator" | "bot",
    text: string,
    replyMarkup: Record<string, unknown> | null,
    metadata: Record<string, unknown>,
    reportOperator: boolean,
    entities: MessageEntity[] | null = null,
    attachments: StoredFile[] = [],
  ): Promise<{ message: DbMessage; conversation: DbConversation; effects: Effects; callbackQueued: boolean }> {
    return this.db.transaction(async (tx) => {
      let conversation = await findConversationByChat(tx, bot.id, this.chatId);
      if (!conversation) throw new Error(`conversation ${bot.id}/${this.chatId} vanished`);
      const reportToBot = reportOperator && reportsToBot(conversation);
      const counters = reportToBot ? (["last_message_id", "last_update_id"] as const) : (["last_message_id"] as const);
      const ids = (await nextBotNumbers(tx, bot.id, counters)) as Record<"last_message_id" | "last_update_id", number>;
      const message = (await insertMessage(tx, {
        botId: bot.id, ownerId: bot.owner_id, conversationId: conversation.id, messageId: ids.last_message_id,
        direction: "out", sender, contactId: null, fromId: null, text, entities, replyMarkup, metadata,
        clientMessageId: null, createdAt: new Date(), attachments,
      }))!;
      // Queued with the message, so a callback channel can never miss it, even across a crash.
      const callbackQueued = (await enqueueCallback(tx, message.id, CALLBACK_CHANNELS)) || (conversation.channel === "email" && (await enqueueMail(tx, message.id)));
      const before = conversation.status;
      conversation = await touchConversation(tx, conversation.id, message.id, message.created_at, statusAfterReply(before), null);
      const contact = conversation.contact_id ? (await findContactsByIds(tx, [conversation.contact_id]))[0] : undefined;
      const effects = messageEffects(bot, conversation, contact, message, { created: false, statusChanged: before !== conversation.status });
      if (reportToBot) {
        const sender = { id: "operator", first_name: "Operator", last_name: null };
        const payload = { update_id: ids.last_update_id, operator_message: runtimeMessage(message, conversation, contact, sender) };
        await insertOutbox(tx, bot.id, ids.last_update_id, payload);
        effects.updates.push({ botId: bot.id, updateId: ids.last_update_id });
      }
      return { message, conversation, effects, callbackQueued };
    });
  }

  /** The bot's edit of one of its messages; live views get message_updated. */
  async editText(
    bot: Pick<DbBot, "id" | "owner_id">, conversation: DbConversation, message: DbMessage, text: string,
    replyMarkup: Record<string, unknown> | null, entities: MessageEntity[] | null = null,
  ): Promise<{ message: DbMessage; effects: Effects }> {
    const edited = await updateMessageText(this.db, message.id, text, replyMarkup, entities);
    return { message: edited, effects: changeEffects("message_updated", bot, conversation, edited) };
  }

  /** The bot's deletion of one of its messages; live views get message_deleted. */
  async deleteMessage(bot: Pick<DbBot, "id" | "owner_id">, conversation: DbConversation, message: DbMessage): Promise<{ effects: Effects }> {
    await markMessageDeleted(this.db, message.id);
    return { effects: changeEffects("message_deleted", bot, conversation, message) };
  }

  /**
   * A visitor's press of an inline button under the bot's `message`: one callback_query
   * update (Telegram's shape, native ids), and the press as an incoming message the inbox
   * shows (metadata.callback_query; the widget does not draw it). Nothing, and null, when
   * a human handles the chat.
   */
  async recordPress(
    bot: Pick<DbBot, "id" | "owner_id">, botSender: RuntimeSender, message: DbMessage, press: { data: string; label: string; id: string },
  ): Promise<{ callbackQueryId: string | null; effects: Effects }> {
    return this.db.transaction(async (tx) => {
      let conversation = (await findConversationById(tx, message.conversation_id))!;
      if (!reportsToBot(conversation)) return { callbackQueryId: null, effects: noEffects() };
      const contact = conversation.contact_id ? (await findContactsByIds(tx, [conversation.contact_id]))[0] : undefined;
      const ids = await nextBotNumbers(tx, bot.id, ["last_message_id", "last_update_id"]);
      await pruneCallbackQueries(tx, bot.id, CALLBACK_ANSWER_WINDOW_SECONDS);
      await insertCallbackQuery(tx, { id: press.id, botId: bot.id, conversationId: conversation.id, messageId: message.message_id, data: press.data });
      const pressed = (await insertMessage(tx, {
        botId: bot.id, ownerId: bot.owner_id, conversationId: conversation.id, messageId: ids.last_message_id, direction: "in", sender: "user",
        contactId: contact?.id ?? null, fromId: null, text: press.label, replyMarkup: null, clientMessageId: null, createdAt: new Date(),
        metadata: { callback_query: { id: press.id, data: press.data, message_id: String(message.message_id) } },
      }))!;
      const before = conversation.status;
      conversation = await touchConversation(tx, conversation.id, pressed.id, pressed.created_at, statusAfterIncoming(before), null);
      const callbackQuery: RuntimeCallbackQuery = {
        id: press.id,
        from: { id: contact?.external_user_id ?? contact?.id ?? "", first_name: contact?.first_name ?? contact?.name ?? null, last_name: contact?.last_name ?? null },
        message: runtimeMessage(message, conversation, undefined, botSender),
        chat_instance: conversation.id,
        data: press.data,
      };
      await insertOutbox(tx, bot.id, ids.last_update_id, { update_id: ids.last_update_id, callback_query: callbackQuery });
      const effects = messageEffects(bot, conversation, contact, pressed, { created: false, statusChanged: before !== conversation.status });
      effects.updates.push({ botId: bot.id, updateId: ids.last_update_id });
      return { callbackQueryId: press.id, effects };
    });
  }

  /** Hands the conversation to a human or back to the bot; live views get conversation_updated. */
  async setHandler(
    bot: Pick<DbBot, "id" | "owner_id">, conversationId: string, handledBy: HandledBy, byUserId: string | null,
  ): Promise<{ conversation: DbConversation; effects: Effects }> {
    const conversation = await updateHandledBy(this.db, conversationId, handledBy, byUserId);
    const contact = conversation.contact_id ? (await findContactsByIds(this.db, [conversation.contact_id]))[0] : undefined;
    const lastMessage = conversation.last_message_id ? (await findMessagesByIds(this.db, [conversation.last_message_id]))[0] : undefined;
    const effects = noEffects();
    effects.events.push({
      kind: "conversation_updated", owner_id: bot.owner_id, bot_id: bot.id, conversation: toConversation(conversation, contact, lastMessage),
    });
    return { conversation, effects };
  }

  /** Operator's status move and/or note. */
  async patchMeta(
    bot: Pick<DbBot, "id" | "owner_id">,
    conversationId: string,
    status: ConversationStatus | null,
    note: string | null,
  ): Promise<{ conversation: DbConversation; contact: DbContact | undefined; lastMessage: DbMessage | undefined; effects: Effects }> {
    const conversation = await updateConversationMeta(this.db, conversationId, status, note);
    const contact = conversation.contact_id ? (await findContactsByIds(this.db, [conversation.contact_id]))[0] : undefined;
    const lastMessage = conversation.last_message_id ? (await findMessagesByIds(this.db, [conversation.last_message_id]))[0] : undefined;
    const effects = noEffects();
    effects.events.push({
      kind: "conversation_updated", owner_id: bot.owner_id, bot_id: bot.id,
      conversation: toConversation(conversation, contact, lastMessage),
    });
    return { conversation, contact, lastMessage, effects };
  }
}

/** The events a new message causes, in the order live views expect them. */
function messageEffects(
  bot: Pick<DbBot, "id" | "owner_id">, conversation: DbConversation, contact: DbContact | undefined, message: DbMessage,
  change: { created: boolean; statusChanged: boolean },
): Effects {
  const view = toConversation(conversation, contact, message);
  const event = (kind: ConversationEventKind) => ({ kind, owner_id: bot.owner_id, bot_id: bot.id, conversation: view, message: toMessage(message, conversation) });
  const effects = noEffects();
  if (change.created) effects.events.push(event("conversation_created"));
  effects.events.push(event("message_created"));
  if (change.statusChanged) effects.events.push(event("conversation_updated"));
  return effects;
}

/** An edit or deletion: the message as the event shows it, with a conversation snapshot without relations. */
function changeEffects(
  kind: "message_updated" | "message_deleted", bot: Pick<DbBot, "id" | "owner_id">, conversation: DbConversation, message: DbMessage,
): Effects {
  const effects = noEffects();
  effects.events.push({
    kind, owner_id: bot.owner_id, bot_id: bot.id,
    conversation: toConversation(conversation, undefined, undefined), message: toMessage(message, conversation),
  });
  return effects;
}
