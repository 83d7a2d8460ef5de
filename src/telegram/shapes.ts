// Native runtime shapes → Telegram's. The native Message names the chat by its chat_id
// string and the sender by the source's id; Telegram clients need integers, so the
// conversation number becomes chat.id, the contact number from.id, message_id a number.
import type { DbBot } from "../db/bots.ts";
import type { TelegramChatRow, TelegramMessageRef } from "../db/telegram.ts";
import { kindOfUpdate, messageOfUpdate, type RuntimeCallbackQuery, type RuntimeMessage, type UpdateKind } from "../core/updates.ts";
import type { LogUpdate } from "../updates/log.ts";
import {
  OPERATOR_SIGNATURE, UNNAMED_FIRST_NAME, type TgBotUser, type TgChat, type TgMessage, type TgUpdate, type TgUser,
} from "./model.ts";
import { tgMediaFields } from "./media-shapes.ts";

export const botUser = (bot: Pick<DbBot, "number" | "name" | "username">): TgUser => ({
  id: bot.number, is_bot: true, first_name: bot.name, username: bot.username,
});

/** getMe: a bot of private chats only (no groups, inline mode, business or web app). */
export const getMeResult = (bot: DbBot): TgBotUser => ({
  ...botUser(bot),
  can_join_groups: false,
  can_read_all_group_messages: false,
  supports_inline_queries: false,
  can_connect_to_business: false,
  has_main_web_app: false,
});

/** Telegram's names: first_name is never empty; a full name stands in when the parts are unknown. */
function names(first: string | null | undefined, last: string | null | undefined, full: string | null | undefined) {
  if (first) return last ? { first_name: first, last_name: last } : { first_name: first };
  return { first_name: full || UNNAMED_FIRST_NAME };
}

export const person = (number: number, first: string | null, last: string | null, full: string | null): TgUser => ({
  id: number, is_bot: false, ...names(first, last, full),
});

export const chatOfRow = (row: TelegramChatRow): TgChat => ({
  id: row.number, type: "private", ...names(row.first_name, row.last_name, row.name), channel: row.channel,
});

export const chatOfRef = (ref: TelegramMessageRef, channel: string): TgChat => ({
  id: ref.chat_number, type: "private", ...names(ref.chat_first_name, ref.chat_last_name, ref.chat_name), channel,
});

export function toTgMessage(native: RuntimeMessage, chat: TgChat, from: TgUser, signature?: string): TgMessage {
  const files = native.attachments ?? [];
  const out: TgMessage = files.length
    ? { message_id: Number(native.message_id), from, chat, date: native.date, ...tgMediaFields(native.text, native.entities, files) }
    : { message_id: Number(native.message_id), from, chat, date: native.date, text: native.text };
  if (signature) out.author_signature = signature;
  if (native.entities && !files.length) out.entities = native.entities;
  if (native.edit_date !== undefined) out.edit_date = native.edit_date;
  if (native.reply_markup) out.reply_markup = native.reply_markup;
  if (native.metadata) out.metadata = native.metadata;
  if (native.form) out.form = native.form;
  const group = native.metadata?.media_group_id;
  if (typeof group === "string") out.media_group_id = group;
  return out;
}

interface NativeOfUpdate {
  update_id: number;
  kind: UpdateKind;
  message: RuntimeMessage;
  query?: RuntimeCallbackQuery;
}

/** The native messages a batch of updates carries (a press: the message under the button), to look their refs up in one query. */
export function nativeMessages(updates: LogUpdate[]): NativeOfUpdate[] {
  return updates.flatMap((u) => {
    const kind = kindOfUpdate(u.payload);
    const message = messageOfUpdate(u.payload);
    if (!kind || !message) return [];
    const query = kind === "callback_query" ? (u.payload[kind] as RuntimeCallbackQuery) : undefined;
    return [{ update_id: u.update_id, kind, message, query }];
  });
}

/**
 * An update whose message cannot be found (its bot's rows were deleted) keeps its
 * update_id alone, so the client still moves its offset past it.
 */
export function toTgUpdates(bot: DbBot, updates: LogUpdate[], refs: TelegramMessageRef[]): TgUpdate[] {
  const byMessageId = new Map(refs.map((r) => [Number(r.message_id), r]));
  const found = new Map(nativeMessages(updates).map((n) => [n.update_id, n]));
  return updates.map((u) => {
    const native = found.get(u.update_id);
    const ref = native && byMessageId.get(Number(native.message.message_id));
    if (!native || !ref) return { update_id: u.update_id };
    const chat = chatOfRef(ref, native.message.chat.channel);
    if (native.query) {
      // The visitor pressed the button: from is the chat's person, the message is the bot's.
      const visitor = person(ref.chat_contact_number ?? 0, ref.chat_first_name, ref.chat_last_name, ref.chat_name);
      const { id, chat_instance, data } = native.query;
      return { update_id: u.update_id, callback_query: { id, from: visitor, message: toTgMessage(native.message, chat, botUser(bot)), chat_instance, data } };
    }
    const from = ref.sender === "user"
      ? person(
          ref.from_number ?? ref.chat_contact_number ?? 0,
          native.message.from.first_name ?? ref.from_first_name,
          native.message.from.last_name ?? ref.from_last_name,
          ref.from_name,
        )
      : botUser(bot);
    const signature = ref.sender === "operator" ? OPERATOR_SIGNATURE : undefined;
    return { update_id: u.update_id, [native.kind]: toTgMessage(native.message, chat, from, signature) };
  });
}
