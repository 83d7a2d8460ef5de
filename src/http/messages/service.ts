import { randomUUID } from "node:crypto";
import type { Accepted } from "../../actors/conversation.ts";
import { takeIn } from "../../domain/conversations.ts";
import { findBotById, findBotByWidgetKey, type DbBot } from "../../db/bots.ts";
import { findChannel } from "../../db/channels.ts";
import type { ContactFields } from "../../db/contacts.ts";
import { findConversationByChat } from "../../db/conversations.ts";
import { listConversationMessages } from "../../db/messages.ts";
import { badRequest, forbidden, notFound } from "../../core/errors.ts";
import type { Platform } from "../../platform.ts";
import type { ChannelType } from "../channels/model.ts";
import type { Message } from "../inbox/model.ts";
import { toMessage } from "../../db/view.ts";
import { HISTORY_DEFAULT_LIMIT, HISTORY_MAX_LIMIT, type AcceptedMessage, type HistoryQuery, type IncomingMessageRequest } from "./model.ts";

/** Timestamps above this are milliseconds (10^12 ms is 2001; 10^12 s is year 33658). */
const MILLISECOND_THRESHOLD = 1e12;
/** Public history is for chats a visitor owns in a browser; CRM/e-mail/form chats stay private. */
export const PUBLIC_HISTORY_CHANNELS: ReadonlySet<string> = new Set(["web", "website", "widget"]);

/** bot_id or widget_key; both must name the same bot; neither is 400; unknown is 404. */
export async function selectBot(platform: Platform, botId: string | undefined, widgetKey: string | undefined): Promise<DbBot> {
  if (!botId && !widgetKey) throw badRequest("bot_id or widget_key is required");
  const byId = botId ? await findBotById(platform.db, botId) : undefined;
  const byKey = widgetKey ? await findBotByWidgetKey(platform.db, widgetKey) : undefined;
  if (botId && widgetKey && byId && byKey && byId.id !== byKey.id) throw badRequest("bot_id and widget_key name different bots");
  const bot = byId ?? byKey;
  if (!bot || (botId && !byId) || (widgetKey && !byKey)) throw notFound("bot");
  return bot;
}

/** An inactive channel refuses incoming traffic; a never-configured one is active. */
export async function requireActiveChannel(platform: Platform, botId: string, channel: ChannelType): Promise<void> {
  const row = await findChannel(platform.db, botId, channel);
  if (row && !row.is_active) throw forbidden(`channel ${channel} is disabled for this bot`);
}

export function messageDate(timestamp: number | undefined, now = Date.now()): Date {
  if (timestamp === undefined) return new Date(now);
  return new Date(timestamp > MILLISECOND_THRESHOLD ? timestamp : timestamp * 1000);
}

export interface IncomingPlan {
  chatId: string;
  channel: ChannelType;
  contactKey: string;
  contact: ContactFields;
  fromId: string | null;
}

/** Works out chat, channel and contact from the request fields (DESIGN §6). */
export function planIncoming(body: IncomingMessageRequest, selectedByWidgetKey: boolean): IncomingPlan {
  const chatId = body.chat_id ?? body.external_chat_id ?? randomUUID();
  const channel: ChannelType = body.channel ?? (selectedByWidgetKey ? "widget" : "custom_api");
  const fromId = body.user?.id ?? body.user_id ?? body.external_user_id ?? null;
  const firstName = body.user?.first_name ?? null;
  const lastName = body.user?.last_name ?? null;
  const name = [firstName, lastName].filter(Boolean).join(" ") || null;
  return {
    chatId,
    channel,
    contactKey: fromId ? `ext:${fromId}` : `chat:${chatId}`,
    contact: { externalUserId: body.external_user_id ?? body.user?.id ?? body.user_id ?? null, firstName, lastName, name, email: null, phone: null },
    fromId,
  };
}

/** `bot` is the one the request names, already limited and origin-checked (http/public.ts). */
export async function acceptMessage(
  platform: Platform, bot: DbBot, body: IncomingMessageRequest, idempotencyKey: string | undefined,
): Promise<AcceptedMessage> {
  const plan = planIncoming(body, !body.bot_id);
  await requireActiveChannel(platform, bot.id, plan.channel);
  const metadata = body.metadata ?? {};
  const clientId = metadata.client_message_id;
  const clientMessageId = typeof clientId === "string" || typeof clientId === "number" ? String(clientId) : idempotencyKey ?? null;
  const accepted = await takeIn(platform, plan.chatId, {
    bot, channel: plan.channel, text: body.text, createdAt: messageDate(body.timestamp), contactKey: plan.contactKey,
    contact: plan.contact, fromId: plan.fromId, metadata, clientMessageId,
  });
  return toAccepted(accepted);
}

export const toAccepted = ({ message, conversation }: Accepted): AcceptedMessage => ({
  id: message.id,
  message_id: String(message.message_id),
  conversation_id: conversation.id,
  chat_id: conversation.chat_id,
  created_at: message.created_at.toISOString(),
});

export async function chatHistory(platform: Platform, bot: DbBot, query: HistoryQuery): Promise<Message[]> {
  const conversation = await findConversationByChat(platform.db, bot.id, query.chat_id);
  if (!conversation || !PUBLIC_HISTORY_CHANNELS.has(conversation.channel)) return [];
  if (query.channel && query.channel !== conversation.channel) return [];
  const limit = Math.min(query.limit ?? HISTORY_DEFAULT_LIMIT, HISTORY_MAX_LIMIT);
  const rows = await listConversationMessages(platform.db, conversation.id, limit, query.before ?? null);
  return rows.map((row) => toMessage(row, conversation));
}
