// What the facade's methods share: the chat and message a call names, checked as Telegram
// checks them, and the native refusals in Telegram's words.
import type { DbBot } from "../db/bots.ts";
import { findTelegramChatByChatId, findTelegramChatByNumber, findTelegramMessageRefs, type TelegramChatRow, type TelegramMessageRef } from "../db/telegram.ts";
import { AppError } from "../core/errors.ts";
import { MAX_TEXT_LENGTH } from "../core/limits.ts";
import type { TelegramDeps } from "./deps.ts";
import { tgBadRequest } from "./errors.ts";
import type { Params } from "./model.ts";
import { optionalArray, optionalBool, optionalInt, optionalObject, optionalString, requireChat, requireInt, type ChatRef } from "./params.ts";

export function requireText(params: Params, name = "text"): string {
  const text = optionalString(params, name);
  if (text === undefined || text.trim() === "") throw tgBadRequest("message text is empty");
  if (text.length > MAX_TEXT_LENGTH) throw tgBadRequest("message is too long");
  return text;
}

/** Telegram's reply_markup: an object, often sent as JSON text by form-encoding clients. */
export const replyMarkup = (params: Params) => optionalObject(params, "reply_markup", "reply keyboard markup JSON object");

/** parse_mode and entities, passed on to the native service, which reads them. */
export function formatting(params: Params, prefix = ""): { parse_mode?: string; entities?: unknown[] } {
  return { parse_mode: optionalString(params, `${prefix}parse_mode`), entities: optionalArray(params, `${prefix}entities`) };
}

/** reply_parameters (Bot API 7+) or the older reply_to_message_id / allow_sending_without_reply. */
export function replyTo(params: Params): { reply_to_message_id?: number; allow_sending_without_reply?: boolean } {
  const parameters = optionalObject(params, "reply_parameters", "ReplyParameters");
  if (parameters) {
    const messageId = optionalInt(parameters, "message_id");
    if (messageId === undefined) throw tgBadRequest("reply_parameters: message_id is required");
    if (parameters.chat_id !== undefined && String(parameters.chat_id) !== String(params.chat_id)) {
      throw tgBadRequest("replies to messages of another chat are not supported");
    }
    return { reply_to_message_id: messageId, allow_sending_without_reply: optionalBool(parameters, "allow_sending_without_reply") };
  }
  const messageId = optionalInt(params, "reply_to_message_id");
  return messageId === undefined ? {} : { reply_to_message_id: messageId, allow_sending_without_reply: optionalBool(params, "allow_sending_without_reply") };
}

export async function findChat(deps: TelegramDeps, bot: DbBot, ref: ChatRef): Promise<TelegramChatRow> {
  const chat = "number" in ref
    ? await findTelegramChatByNumber(deps.db, bot.id, ref.number)
    : await findTelegramChatByChatId(deps.db, bot.id, ref.chatId);
  if (!chat) throw tgBadRequest("chat not found");
  return chat;
}

const sameChat = (ref: TelegramMessageRef, chat: ChatRef) =>
  "number" in chat ? Number(ref.chat_number) === chat.number : ref.chat_id === chat.chatId;

/** Telegram answers 400 for a message the bot cannot touch, whatever the reason. */
export async function ownMessage(deps: TelegramDeps, bot: DbBot, params: Params, verb: "edit" | "delete"): Promise<TelegramMessageRef> {
  const chat = requireChat(params);
  const messageId = requireInt(params, "message_id", "message identifier is not specified");
  const [ref] = await findTelegramMessageRefs(deps.db, bot.id, [messageId]);
  if (!ref || ref.deleted_at || !sameChat(ref, chat)) throw tgBadRequest(`message to ${verb} not found`);
  if (ref.sender !== "bot") throw tgBadRequest(`message can't be ${verb === "edit" ? "edited" : "deleted"}`);
  return ref;
}

/** The native service's refusals in Telegram's words (a race can still end in them after our checks). */
export function nativeRefusal(err: unknown, verb: "edit" | "delete"): unknown {
  if (!(err instanceof AppError)) return err;
  if (err.code === "not_found") return tgBadRequest(`message to ${verb} not found`);
  if (err.code === "forbidden") return tgBadRequest(`message can't be ${verb === "edit" ? "edited" : "deleted"}`);
  if (err.reason === "not_modified") {
    return tgBadRequest(
      "message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message",
    );
  }
  return err;
}

