// The facade's button methods: answerCallbackQuery, editMessageReplyMarkup, and handOffChat
// (ours, not Telegram's: the bot hands the chat to a human operator).
import * as native from "../domain/runtime.ts";
import { answerCallbackQuery } from "../domain/buttons.ts";
import { botHandoff } from "../domain/handoff.ts";
import { AppError } from "../core/errors.ts";
import { tgBadRequest } from "./errors.ts";
import { findChat, nativeRefusal, ownMessage, replyMarkup } from "./lookup.ts";
import type { Method } from "./model.ts";
import { optionalBool, optionalString, requireChat } from "./params.ts";
import { botUser, chatOfRef, toTgMessage } from "./shapes.ts";

const answer: Method = async (deps, bot, params) => {
  const id = optionalString(params, "callback_query_id");
  if (!id) throw tgBadRequest("query is too old and response timeout expired or query ID is invalid");
  const call = answerCallbackQuery(deps, bot, {
    callback_query_id: id,
    text: optionalString(params, "text"),
    show_alert: optionalBool(params, "show_alert"),
    url: optionalString(params, "url"),
  });
  return { result: await call.catch((err: unknown) => Promise.reject(err instanceof AppError && err.reason === "query_expired" ? tgBadRequest(err.message) : err)) };
};

const editReplyMarkup: Method = async (deps, bot, params) => {
  if (optionalString(params, "inline_message_id")) throw tgBadRequest("inline messages are not supported: use chat_id and message_id");
  const markup = replyMarkup(params);
  const ref = await ownMessage(deps, bot, params, "edit");
  const edited = await native
    .editMessageReplyMarkup(deps, bot, { message_id: Number(ref.message_id), reply_markup: markup })
    .catch((err: unknown) => Promise.reject(nativeRefusal(err, "edit")));
  return { result: toTgMessage(edited, chatOfRef(ref, edited.chat.channel), botUser(bot)) };
};

const handOff: Method = async (deps, bot, params) => {
  const chat = await findChat(deps, bot, requireChat(params));
  await botHandoff(deps, bot, chat.chat_id);
  return { result: true };
};

export const BUTTON_METHODS: Record<string, Method> = {
  answercallbackquery: answer,
  editmessagereplymarkup: editReplyMarkup,
  handoffchat: handOff,
};
