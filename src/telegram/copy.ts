// copyMessage and forwardMessage within the bot's own conversations: the source's text and
// formatting become a new bot message in the target chat (no media exists here).
import type { DbBot } from "../db/bots.ts";
import { findMessageByBotMessageId } from "../db/messages.ts";
import * as native from "../domain/runtime.ts";
import type { TelegramDeps } from "./deps.ts";
import { tgBadRequest } from "./errors.ts";
import { findChat, formatting, replyMarkup } from "./lookup.ts";
import type { Method, Params } from "./model.ts";
import { optionalString, requireChat, requireInt, type ChatRef } from "./params.ts";
import { botUser, chatOfRow, toTgMessage } from "./shapes.ts";

async function sendCopy(deps: TelegramDeps, bot: DbBot, params: Params) {
  const target = await findChat(deps, bot, requireChat(params));
  const fromRef = params.from_chat_id === undefined ? undefined : requireChat({ chat_id: params.from_chat_id });
  if (!fromRef) throw tgBadRequest("from_chat_id is empty");
  const source = await findChat(deps, bot, fromRef as ChatRef);
  const messageId = requireInt(params, "message_id", "message identifier is not specified");
  const message = await findMessageByBotMessageId(deps.db, bot.id, messageId);
  if (!message || message.deleted_at || message.conversation_id !== source.id) throw tgBadRequest("message to copy not found");
  // A caption is Telegram's replacement text for media; for a text message it replaces nothing, so the text stays.
  const override = optionalString(params, "caption");
  const text = override ? { text: override, ...formatting(params, "caption_") } : { text: message.text, entities: message.entities ?? undefined };
  const sent = await native.sendMessage(deps, bot, { chat_id: target.chat_id, ...text, reply_markup: replyMarkup(params) });
  return toTgMessage(sent, chatOfRow(target), botUser(bot));
}

export const COPY_METHODS: Record<string, Method> = {
  copymessage: async (deps, bot, params) => ({ result: { message_id: (await sendCopy(deps, bot, params)).message_id } }),
  forwardmessage: async (deps, bot, params) => ({ result: await sendCopy(deps, bot, params) }),
};
