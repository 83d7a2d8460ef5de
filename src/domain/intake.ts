// Intake: a person's message from any public source (custom API, widget, form plugin) becomes
// one conversation message through the same write path (conversations.ts takeIn). The HTTP
// side has already named the bot, limited it and checked the Origin (http/public.ts).
import { requireTextOrFiles, resolveAttachments } from "./files.ts";
import { randomUUID } from "node:crypto";
import type { Accepted } from "../actors/conversation.ts";
import { badRequest, forbidden, notFound } from "../core/errors.ts";
import { MAX_TEXT_LENGTH } from "../core/limits.ts";
import { hasPublicHistory, type ChannelType, type Message } from "../core/records.ts";
import { findBotByIntegrationKey, type DbBot } from "../db/bots.ts";
import type { BotDirectory } from "./directory.ts";
import type { ContactFields } from "../db/contacts.ts";
import { findConversationByChat } from "../db/conversations.ts";
import type { Db } from "../db/driver.ts";
import { listConversationMessages } from "../db/messages.ts";
import { toMessage } from "../db/view.ts";
import { takeIn, type ConversationDeps } from "./conversations.ts";
import { verifiedContactKey, visitorChat, type IdentityClaim, type IdentityDeps, type VisitorChat } from "./identity.ts";
import { checkChannelSignature, refuseReservedMetadata, refuseServerChatId, SERVER_CHAT_PREFIX, visitorTime, type SignedRequest } from "./visitor.ts";

/** Chat history pages (docs/design.md §7). */
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
  user?: { id?: string; first_name?: string; last_name?: string; name?: string; email?: string };
  /** hex HMAC-SHA256(the bot's identity secret, user id): the site vouches for its user (identity.ts). */
  user_hash?: string;
  metadata?: Record<string, unknown>;
  /** file_ids uploaded for this chat (POST /api/files). */
  attachments?: string[];
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


/** bot_id or widget_key; both must name the same bot; neither is 400; unknown is 404. */
export async function selectBot(deps: { bots: BotDirectory }, botId: string | undefined, widgetKey: string | undefined): Promise<DbBot> {
  if (!botId && !widgetKey) throw badRequest("bot_id or widget_key is required");
  const byId = botId ? await deps.bots.byId(botId) : undefined;
  const byKey = widgetKey ? await deps.bots.byWidgetKey(widgetKey) : undefined;
  if (botId && widgetKey && byId && byKey && byId.id !== byKey.id) throw badRequest("bot_id and widget_key name different bots");
  const bot = byId ?? byKey;
  if (!bot || (botId && !byId) || (widgetKey && !byKey)) throw notFound("bot");
  return bot;
}

/** The bot a site form names by its integration key; unknown is 404. */
export async function botByIntegrationKey(deps: { db: Db }, integrationKey: string): Promise<DbBot> {
  const bot = await findBotByIntegrationKey(deps.db, integrationKey);
  if (!bot) throw notFound("integration");
  return bot;
}

/** An inactive channel refuses incoming traffic; a never-configured one is active. */
export async function requireActiveChannel(deps: { bots: BotDirectory }, botId: string, channel: ChannelType): Promise<void> {
  const row = await deps.bots.channel(botId, channel);
  if (row && !row.is_active) throw forbidden(`channel ${channel} is disabled for this bot`);
}

export interface IncomingPlan {
  chatId: string;
  channel: ChannelType;
  contactKey: string;
  contact: ContactFields;
  fromId: string | null;
}

/**
 * Works out chat, channel and contact from the request fields (docs/design.md §6). A verified
 * user (identity.ts) has the chat and contact of their user id, which no other claim reaches.
 */
function planIncoming(body: IncomingMessage, selectedByWidgetKey: boolean, verified: VisitorChat): IncomingPlan {
  const chatId = verified.chatId ?? body.chat_id ?? body.external_chat_id ?? randomUUID();
  const channel: ChannelType = body.channel ?? (selectedByWidgetKey ? "widget" : "custom_api");
  const fromId = verified.userId ?? body.user?.id ?? body.user_id ?? body.external_user_id ?? null;
  const firstName = body.user?.first_name ?? null;
  const lastName = body.user?.last_name ?? null;
  const name = body.user?.name || [firstName, lastName].filter(Boolean).join(" ") || null;
  const email = verified.userId ? body.user?.email ?? null : null;
  return {
    chatId,
    channel,
    contactKey: verified.userId ? verifiedContactKey(verified.userId) : fromId ? `ext:${fromId}` : `chat:${chatId}`,
    contact: { externalUserId: verified.userId ?? body.external_user_id ?? body.user?.id ?? body.user_id ?? null, firstName, lastName, name, email, phone: null },
    fromId,
  };
}

/**
 * `bot` is the one the request names, already limited and origin-checked (http/public.ts);
 * `signed` is the raw request, for channels that check their server's signature.
 */
export async function acceptMessage(
  deps: ConversationDeps & IdentityDeps & { bots: BotDirectory }, bot: DbBot, body: IncomingMessage, idempotencyKey: string | undefined,
  signed?: SignedRequest,
): Promise<AcceptedMessage> {
  const identity = await visitorChat(deps, bot.id, { chat_id: body.chat_id ?? body.external_chat_id, user_id: body.user?.id ?? body.user_id, user_hash: body.user_hash });
  const plan = planIncoming(body, !body.bot_id, identity);
  refuseServerChatId(plan.chatId);
  const given = body.metadata ?? {};
  refuseReservedMetadata(given);
  await requireActiveChannel(deps, bot.id, plan.channel);
  const verified = (await checkChannelSignature(deps, bot.id, plan.channel, signed)) || identity.userId !== undefined;
  const attachments = await resolveAttachments(deps.db, bot.id, body.attachments, plan.chatId);
  requireTextOrFiles(body.text, attachments);
  const { createdAt, clientTimestamp } = visitorTime(body.timestamp);
  const metadata = clientTimestamp === undefined ? given : { ...given, client_timestamp: clientTimestamp };
  const clientId = metadata.client_message_id;
  const clientMessageId = typeof clientId === "string" || typeof clientId === "number" ? String(clientId) : idempotencyKey ?? null;
  const accepted = await takeIn(deps, plan.chatId, {
    bot, channel: plan.channel, text: body.text, createdAt, contactKey: plan.contactKey,
    contact: plan.contact, fromId: plan.fromId, metadata, clientMessageId, attachments, verified,
  });
  return toAccepted(accepted);
}

const toAccepted = ({ message, conversation }: Accepted): AcceptedMessage => ({
  id: message.id,
  message_id: String(message.message_id),
  conversation_id: conversation.id,
  chat_id: conversation.chat_id,
  created_at: message.created_at.toISOString(),
});

export async function chatHistory(deps: IdentityDeps & { bots: BotDirectory }, bot: DbBot, query: HistoryQuery & IdentityClaim): Promise<Message[]> {
  const { chatId } = await visitorChat(deps, bot.id, query);
  const conversation = await findConversationByChat(deps.db, bot.id, chatId!);
  if (!conversation || !hasPublicHistory(conversation.channel)) return [];
  if (query.channel && query.channel !== conversation.channel) return [];
  // A switched-off channel is closed both ways: nothing in, nothing out.
  await requireActiveChannel(deps, bot.id, conversation.channel as ChannelType);
  const limit = Math.min(query.limit ?? HISTORY_DEFAULT_LIMIT, HISTORY_MAX_LIMIT);
  const rows = await listConversationMessages(deps.db, conversation.id, limit, query.before ?? null);
  return rows.map((row) => toMessage(row, conversation));
}

const digits = (phone: string) => phone.replace(/[^\d+]/g, "");

/**
 * The conversation follows the person: by e-mail, else phone, else one per submission. These
 * ids are in the server's namespace (SERVER_CHAT_PREFIX), which no public writer can name.
 */
export function formChatId(form: FormSubmission): string {
  if (form.contact_email) return `${SERVER_CHAT_PREFIX}email:${form.contact_email.trim().toLowerCase()}`;
  if (form.contact_phone && digits(form.contact_phone)) return `${SERVER_CHAT_PREFIX}phone:${digits(form.contact_phone)}`;
  return `${SERVER_CHAT_PREFIX}${randomUUID()}`;
}

/** The inbox shows a submission as text: title, then contact and fields line by line. */
function renderForm(form: FormSubmission): string {
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
export async function acceptFormSubmission(
  deps: ConversationDeps & { bots: BotDirectory }, bot: DbBot, form: FormSubmission, signed?: SignedRequest,
): Promise<AcceptedMessage> {
  await requireActiveChannel(deps, bot.id, "sitecms");
  await checkChannelSignature(deps, bot.id, "sitecms", signed);
  let chatId = formChatId(form);
  // A chat another channel holds under this id (written before the namespace was reserved) is not joined.
  const holder = await findConversationByChat(deps.db, bot.id, chatId);
  if (holder && holder.channel !== "sitecms") chatId = `${SERVER_CHAT_PREFIX}${randomUUID()}`;
  const email = form.contact_email?.trim() ?? null;
  const phone = form.contact_phone?.trim() || null;
  const contactKey = email ? `email:${email.toLowerCase()}` : phone && digits(phone) ? `phone:${digits(phone)}` : `chat:${chatId}`;
  const { integration_key: _secret, ...raw } = form;
  const metadata: Record<string, unknown> = { form: raw };
  if (form.page_url) metadata.page_url = form.page_url;
  // No client_message_id on a form, so never a repeat: takeIn's idempotent branch is not reached.
  const accepted = await takeIn(deps, chatId, {
    bot, channel: "sitecms", text: renderForm(form), createdAt: new Date(), contactKey,
    contact: { externalUserId: null, firstName: null, lastName: null, name: form.contact_name ?? null, email, phone },
    fromId: null, metadata, clientMessageId: null,
  });
  return toAccepted(accepted);
}
