import { admitPoll, BotActor } from "../../../actors/bot.ts";
import type { DbBot } from "../../db/bots.ts";
import { getCommands, setCommands, type BotCommand } from "../../db/commands.ts";
import { findConversationByChat, findConversationById } from "../../db/conversations.ts";
import { findMessageByBotMessageId, markMessageDeleted, updateMessageText } from "../../db/messages.ts";
import { badRequest, conflict, forbidden, notFound } from "../../errors.ts";
import type { Platform } from "../../platform.ts";
import { runtimeMessage, type RuntimeMessage, type RuntimeSender } from "../../runtime/update.ts";
import type { LogUpdate } from "../../updates/log.ts";
import { toConversation, toMessage } from "../inbox/view.ts";
import { conversationActor } from "../messages/service.ts";
import {
  MAX_REPLY_MARKUP_BYTES, POLL_DEFAULT_TIMEOUT_SECONDS, POLL_MAX_TIMEOUT_SECONDS, UPDATES_DEFAULT_LIMIT, UPDATES_MAX_LIMIT,
  type EditMessageTextRequest, type GetUpdatesQuery, type SendMessageRequest,
} from "./model.ts";

const COMMAND_NAME = /^[a-z0-9_]{1,32}$/;

export function botActor(platform: Platform, botId: string) {
  const ref = platform.actors.actorOf("bot", botId, () => new BotActor(platform.botDeps, botId, (work) => ref.tell(work)));
  return ref;
}

export const botSender = (bot: Pick<DbBot, "number" | "name" | "username">): RuntimeSender => ({
  id: String(bot.number), first_name: bot.name, last_name: null, is_bot: true, username: bot.username,
});

const clamp = (value: number, min: number, max: number) => Math.min(max, Math.max(min, value));

export interface PollOptions {
  defaultTimeoutSeconds?: number;
}

/** Telegram's getUpdates: confirm below offset, clamp limit and timeout, park until an update. */
export async function getUpdates(platform: Platform, bot: DbBot, query: GetUpdatesQuery, options: PollOptions = {}): Promise<LogUpdate[]> {
  if (bot.webhook_url) throw conflict("can't use get-updates while a webhook is active; use delete-webhook first");
  const limit = clamp(query.limit ?? UPDATES_DEFAULT_LIMIT, 1, UPDATES_MAX_LIMIT);
  const timeout = clamp(query.timeout ?? options.defaultTimeoutSeconds ?? POLL_DEFAULT_TIMEOUT_SECONDS, 0, POLL_MAX_TIMEOUT_SECONDS);
  const { wait } = await admitPoll(platform.botDeps, bot.id, () =>
    botActor(platform, bot.id).ask((actor) => actor.poll({ offset: query.offset ?? 0, limit, timeoutMs: timeout * 1000 })),
  );
  return wait;
}

function checkReplyMarkup(markup: Record<string, unknown> | undefined): Record<string, unknown> | null {
  if (markup === undefined) return null;
  if (JSON.stringify(markup).length > MAX_REPLY_MARKUP_BYTES) throw badRequest(`reply_markup: larger than ${MAX_REPLY_MARKUP_BYTES} bytes`);
  return markup;
}

/** Sends into an existing chat of this bot; moves new → open; reaches the channel and live views. */
export async function sendMessage(platform: Platform, bot: DbBot, body: SendMessageRequest): Promise<RuntimeMessage> {
  const replyMarkup = checkReplyMarkup(body.reply_markup);
  const conversation = await findConversationByChat(platform.db, bot.id, body.chat_id);
  if (!conversation) throw notFound("chat");
  await botActor(platform, bot.id).ask((actor) => actor.takeSendToken());
  const { message, conversation: after, effects } = await conversationActor(platform, bot.id, conversation.chat_id).ask((actor) =>
    actor.storeOutgoing(bot, "bot", body.text, replyMarkup, {}, false),
  );
  await platform.dispatch(effects);
  return runtimeMessage(message, after, undefined, botSender(bot));
}

/** Only this bot's own runtime messages, and only when they are still there. */
async function ownRuntimeMessage(platform: Platform, bot: DbBot, messageId: string | number) {
  const message = await findMessageByBotMessageId(platform.db, bot.id, Number(messageId));
  if (!message || message.deleted_at) throw notFound("message");
  if (message.sender !== "bot") throw forbidden("only messages sent by this bot through the runtime API can be changed");
  const conversation = (await findConversationById(platform.db, message.conversation_id))!;
  return { message, conversation };
}

export async function editMessageText(platform: Platform, bot: DbBot, body: EditMessageTextRequest): Promise<RuntimeMessage> {
  const replyMarkup = checkReplyMarkup(body.reply_markup);
  const { message, conversation } = await ownRuntimeMessage(platform, bot, body.message_id);
  if (message.text === body.text && (replyMarkup === null || JSON.stringify(replyMarkup) === JSON.stringify(message.reply_markup))) {
    throw badRequest("message is not modified: the new text is the same as the current one");
  }
  const edited = await conversationActor(platform, bot.id, conversation.chat_id).ask(() =>
    updateMessageText(platform.db, message.id, body.text, replyMarkup),
  );
  await platform.dispatch({
    updates: [],
    events: [{
      kind: "message_updated", owner_id: bot.owner_id, bot_id: bot.id,
      conversation: toConversation(conversation, undefined, undefined), message: toMessage(edited, conversation),
    }],
  });
  return runtimeMessage(edited, conversation, undefined, botSender(bot));
}

export async function deleteMessage(platform: Platform, bot: DbBot, messageId: string | number): Promise<true> {
  const { message, conversation } = await ownRuntimeMessage(platform, bot, messageId);
  await conversationActor(platform, bot.id, conversation.chat_id).ask(() => markMessageDeleted(platform.db, message.id));
  await platform.dispatch({
    updates: [],
    events: [{
      kind: "message_deleted", owner_id: bot.owner_id, bot_id: bot.id,
      conversation: toConversation(conversation, undefined, undefined), message: toMessage(message, conversation),
    }],
  });
  return true;
}

/** DESIGN §6: command ^[a-z0-9_]{1,32}$ after stripping one leading "/"; description 1..256. */
export function normaliseCommands(commands: BotCommand[]): BotCommand[] {
  return commands.map((c, i) => {
    const command = c.command.replace(/^\//, "");
    if (!COMMAND_NAME.test(command)) {
      throw badRequest(`commands.${i}.command: must match ^[a-z0-9_]{1,32}$ (lowercase letters, digits, underscore)`);
    }
    if (c.description.trim() === "") throw badRequest(`commands.${i}.description: must not be blank`);
    return { command, description: c.description };
  });
}

export async function setMyCommands(platform: Platform, bot: DbBot, commands: BotCommand[]): Promise<true> {
  await setCommands(platform.db, bot.id, normaliseCommands(commands));
  return true;
}

export const getMyCommands = (platform: Platform, bot: DbBot) => getCommands(platform.db, bot.id);

export async function deleteMyCommands(platform: Platform, bot: DbBot): Promise<true> {
  await setCommands(platform.db, bot.id, []);
  return true;
}

export const botInfo = (bot: DbBot) => ({
  id: bot.id, number: bot.number, is_bot: true as const, first_name: bot.name, username: bot.username, description: bot.description,
});


