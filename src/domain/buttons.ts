// Inline buttons on the website: a visitor's press becomes a callback_query update for the
// bot (and a line in the inbox), and the bot's answerCallbackQuery reaches the widget as a
// toast or an alert.
import type { EventBus } from "../bus/bus.ts";
import type { DbBot } from "../db/bots.ts";
import { answerCallbackQueryRow } from "../db/callback_queries.ts";
import { findConversationByChat, findConversationById } from "../db/conversations.ts";
import { findMessageByBotMessageId } from "../db/messages.ts";
import { badRequest, conflict, notFound } from "../core/errors.ts";
import type { CallbackAnsweredEvent } from "../core/events.ts";
import { CALLBACK_ANSWER_WINDOW_SECONDS, MAX_CALLBACK_ANSWER_LENGTH, MAX_URL_LENGTH } from "../core/limits.ts";
import { eventSubject } from "../core/subjects.ts";
import type { Logger } from "../logger.ts";
import { pressButton, type ConversationDeps } from "./conversations.ts";
import { hasPublicHistory } from "../core/records.ts";
import { callbackButtonLabel } from "./markup.ts";
import { botSender } from "./runtime.ts";
import { visitorChat, type IdentityClaim, type IdentityDeps } from "./identity.ts";

export interface ButtonPress extends IdentityClaim {
  chat_id: string;
  message_id: string | number;
  data: string;
}

export interface CallbackAnswer {
  callback_query_id: string;
  text?: string;
  show_alert?: boolean;
  url?: string;
}

/**
 * The press must name a button that is really under one of the bot's messages in this
 * browser chat: nothing else can be made to reach the bot as a callback_query.
 */
export async function pressInlineButton(deps: ConversationDeps & IdentityDeps, bot: DbBot, press: ButtonPress): Promise<{ callback_query_id: string }> {
  await visitorChat(deps, bot.id, press);
  const conversation = await findConversationByChat(deps.db, bot.id, press.chat_id);
  if (!conversation || !hasPublicHistory(conversation.channel)) throw notFound("chat");
  const message = await findMessageByBotMessageId(deps.db, bot.id, Number(press.message_id));
  if (!message || message.deleted_at || message.conversation_id !== conversation.id || message.sender !== "bot") throw notFound("message");
  const label = callbackButtonLabel(message.reply_markup, press.data);
  if (label === undefined) throw badRequest("data: the message has no button with this callback_data");
  const id = await pressButton(deps, bot, botSender(bot), conversation, message, { data: press.data, label });
  if (id === null) throw conflict("an operator is handling this conversation: the bot does not receive button presses now");
  return { callback_query_id: id };
}

export interface AnswerDeps {
  db: ConversationDeps["db"];
  bus: EventBus;
  logger: Logger;
}

/** Telegram's answerCallbackQuery: once per press, within the answer window. */
export async function answerCallbackQuery(deps: AnswerDeps, bot: DbBot, answer: CallbackAnswer): Promise<true> {
  const text = answer.text ?? "";
  if (text.length > MAX_CALLBACK_ANSWER_LENGTH) throw badRequest(`text: at most ${MAX_CALLBACK_ANSWER_LENGTH} characters`);
  if (answer.url !== undefined && answer.url.length > MAX_URL_LENGTH) throw badRequest("url: too long");
  const row = await answerCallbackQueryRow(deps.db, bot.id, answer.callback_query_id, CALLBACK_ANSWER_WINDOW_SECONDS);
  if (!row) throw badRequest("query is too old and response timeout expired or query ID is invalid", "query_expired");
  const conversation = await findConversationById(deps.db, row.conversation_id);
  if (!conversation) return true;
  const event: CallbackAnsweredEvent = {
    kind: "callback_answered", owner_id: bot.owner_id, bot_id: bot.id, chat_id: conversation.chat_id, channel: conversation.channel,
    callback_query_id: row.id, text, show_alert: answer.show_alert ?? false, url: answer.url || null,
  };
  // A notification only (like typing): the answer is stored, a lost event only leaves the spinner to time out.
  deps.bus.publish(eventSubject(event), event).catch((err: unknown) => deps.logger.warn({ err }, "callback answer publish failed"));
  return true;
}
