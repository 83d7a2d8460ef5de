// Intake: a person's message from any public source (custom API, widget, form plugin) becomes
// one conversation message through the same write path (conversations.ts takeIn). The HTTP
// side has already named the bot, limited it and checked the Origin (http/public.ts).
import { randomUUID } from "node:crypto";
import type { Accepted } from "../actors/conversation.ts";
import { badRequest, forbidden, notFound } from "../core/errors.ts";
import { MAX_TEXT_LENGTH } from "../core/limits.ts";
import type { ChannelType, Message } from "../core/records.ts";
import type { DbBot } from "../db/bots.ts";
import type { BotDirectory } from "./directory.ts";
import type { ContactFields } from "../db/contacts.ts";
import { findConversationByChat } from "../db/conversations.ts";
import type { Db } from "../db/driver.ts";
import { listConversationMessages } from "../db/messages.ts";
import { toMessage } from "../db/view.ts";
import { takeIn, type ConversationDeps } from "./conversations.ts";

/** Chat history pages (DESIGN §7). */
export const HISTORY_DEFAULT_LIMIT = 50;
export const HISTORY_MAX_LIMIT = 200;

/** A message as the custom API and the widget send it (http/messages/model.ts validates it). */
export interface IncomingMessage {
  text: string;
  bot_id?: string;
  widget_key?: string;
  chat_id?: string;
  user_id?: string;
  timestamp?: number;
  channel?: ChannelType;
  external_chat_id?: string;
  external_user_id?: string;
  user?: { id?: string; first_name?: string; last_name?: string };
  metadata?: Record<string, unknown>;
}

export interface AcceptedMessage {
  id: string;
  message_id: string;
  conversation_id: string;
  chat_id: string;
  created_at: string;
}

export interface HistoryQuery {
  chat_id: string;
  channel?: string;
  limit?: number;
  before?: number;
}

/** A site form submission as the form plugin sends it (http/forms/model.ts validates it). */
export interface FormSubmission {
  integration_key: string;
  site_url?: string;
  page_url?: string;
  form_id?: string;
  form_title?: string;
  contact_email?: string;
  contact_phone?: string;
  contact_name?: string;
  fields?: Record<string, string | string[] | null>;
}

/** Timestamps above this are milliseconds (10^12 ms is 2001; 10^12 s is year 33658). */
const MILLISECOND_THRESHOLD = 1e12;
/** Public history is for chats a visitor owns in a browser; CRM/e-mail/form chats stay private. */
export const PUBLIC_HISTORY_CHANNELS: ReadonlySet<string> = new Set(["web", "website", "widget"]);

/** bot_id or widget_key; both must name the same bot; neither is 400; unknown is 404. */
export async function selectBot(platform: { bots: BotDirectory }, botId: string | undefined, widgetKey: string | undefined): Promise<DbBot> {
  if (!botId && !widgetKey) throw badRequest("bot_id or widget_key is required");
  const byId = botId ? await platform.bots.byId(botId) : undefined;
  const byKey = widgetKey ? await platform.bots.byWidgetKey(widgetKey) : undefined;
  if (botId && widgetKey && byId && byKey && byId.id !== byKey.id) throw badRequest("bot_id and widget_key name different bots");
  const bot = byId ?? byKey;
  if (!bot || (botId && !byId) || (widgetKey && !byKey)) throw notFound("bot");
  return bot;
}

/** An inactive channel refuses incoming traffic; a never-configured one is active. */
export async function requireActiveChannel(platform: { bots: BotDirectory }, botId: string, channel: ChannelType): Promise<void> {
  const row = await platform.bots.channel(botId, channel);
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
export function planIncoming(body: IncomingMessage, selectedByWidgetKey: boolean): IncomingPlan {
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
  platform: ConversationDeps & { bots: BotDirectory }, bot: DbBot, body: IncomingMessage, idempotencyKey: string | undefined,
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

export async function chatHistory(platform: { db: Db }, bot: DbBot, query: HistoryQuery): Promise<Message[]> {
  const conversation = await findConversationByChat(platform.db, bot.id, query.chat_id);
  if (!conversation || !PUBLIC_HISTORY_CHANNELS.has(conversation.channel)) return [];
  if (query.channel && query.channel !== conversation.channel) return [];
  const limit = Math.min(query.limit ?? HISTORY_DEFAULT_LIMIT, HISTORY_MAX_LIMIT);
  const rows = await listConversationMessages(platform.db, conversation.id, limit, query.before ?? null);
  return rows.map((row) => toMessage(row, conversation));
}

const digits = (phone: string) => phone.replace(/[^\d+]/g, "");

/** The conversation follows the person: by e-mail, else phone, else one per submission. */
export function formChatId(form: FormSubmission): string {
  if (form.contact_email) return `form:email:${form.contact_email.trim().toLowerCase()}`;
  if (form.contact_phone && digits(form.contact_phone)) return `form:phone:${digits(form.contact_phone)}`;
  return `form:${randomUUID()}`;
}

/** The inbox shows a submission as text: title, then contact and fields line by line. */
export function renderForm(form: FormSubmission): string {
  const lines = [`Form: ${form.form_title ?? form.form_id ?? "website form"}`];
  if (form.contact_name) lines.push(`Name: ${form.contact_name}`);
  if (form.contact_email) lines.push(`Email: ${form.contact_email}`);
  if (form.contact_phone) lines.push(`Phone: ${form.contact_phone}`);
  for (const [key, value] of Object.entries(form.fields ?? {})) {
    lines.push(`${key}: ${Array.isArray(value) ? value.join(", ") : value ?? "—"}`);
  }
  if (form.page_url) lines.push(`Page: ${form.page_url}`);
  const text = lines.join("\n");
  return text.length > MAX_TEXT_LENGTH ? `${text.slice(0, MAX_TEXT_LENGTH - 1)}…` : text;
}

/** `bot` is the one the integration_key names, already limited (http/public.ts). */
export async function acceptFormSubmission(platform: ConversationDeps & { bots: BotDirectory }, bot: DbBot, form: FormSubmission): Promise<AcceptedMessage> {
  await requireActiveChannel(platform, bot.id, "sitecms");
  const chatId = formChatId(form);
  const email = form.contact_email?.trim() ?? null;
  const phone = form.contact_phone?.trim() || null;
  const contactKey = email ? `email:${email.toLowerCase()}` : phone && digits(phone) ? `phone:${digits(phone)}` : `chat:${chatId}`;
  const { integration_key: _secret, ...raw } = form;
  const metadata: Record<string, unknown> = { form: raw };
  if (form.page_url) metadata.page_url = form.page_url;
  // No client_message_id on a form, so never a repeat: takeIn's idempotent branch is not reached.
  const accepted = await takeIn(platform, chatId, {
    bot, channel: "sitecms", text: renderForm(form), createdAt: new Date(), contactKey,
    contact: { externalUserId: null, firstName: null, lastName: null, name: form.contact_name ?? null, email, phone },
    fromId: null, metadata, clientMessageId: null,
  });
  return toAccepted(accepted);
}
