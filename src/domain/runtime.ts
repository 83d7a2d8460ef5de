// The bot runtime's use cases (docs/design.md §5): long polls, the bot's messages, its commands.
// The native API and the Telegram facade both call these; neither knows HTTP here.
import { requireTextOrFiles, resolveAttachments, type FileDeps } from "./files.ts";
import type { StoredFile } from "../core/files.ts";
import { Type } from "@sinclair/typebox";
import { admitPoll, BotActor, type BotActorDeps } from "../actors/bot.ts";
import { findBotByTokenHash, type DbBot } from "../db/bots.ts";
import { hashToken } from "../secrets.ts";
import { getCommands, setCommands, type BotCommand } from "../db/commands.ts";
import { findConversationByChat, findConversationById } from "../db/conversations.ts";
import { findMessageByBotMessageId } from "../db/messages.ts";
import type { Db } from "../db/driver.ts";
import { badRequest, conflict, forbidden, notFound, unauthorized } from "../core/errors.ts";
import type { RuntimeMessage, RuntimeSender } from "../core/updates.ts";
import { runtimeMessage } from "../db/view.ts";
import type { LogUpdate } from "../updates/log.ts";
import type { ActorSystem } from "../actors/system.ts";
import type { EventBus } from "../bus/bus.ts";
import { pollSubject } from "../core/subjects.ts";
import { deleteFromBot, editFromBot, sendFromBot, type ConversationDeps } from "./conversations.ts";
import { formatText, type FormattedInput } from "../core/formatting/index.ts";
import { checkReplyMarkup, MAX_REPLY_MARKUP_BYTES } from "./markup.ts";
import { backendPolled } from "./routing.ts";

export { MAX_REPLY_MARKUP_BYTES };

/** Telegram's getUpdates bounds. */
export const UPDATES_MAX_LIMIT = 100;
export const UPDATES_DEFAULT_LIMIT = 100;
export const POLL_MAX_TIMEOUT_SECONDS = 50;
export const POLL_DEFAULT_TIMEOUT_SECONDS = 30;
/** Telegram's command list bounds. */
export const MAX_COMMANDS = 100;
export const MAX_COMMAND_DESCRIPTION_LENGTH = 256;

/** The command list as the native API and the facade validate it (TypeBox, not Elysia: the same JSON Schema). */
export const BotCommandSchema = Type.Object({
  command: Type.String({ minLength: 1, maxLength: 33, description: "^[a-z0-9_]{1,32}$; a leading / is stripped" }),
  description: Type.String({ minLength: 1, maxLength: MAX_COMMAND_DESCRIPTION_LENGTH }),
});
export const SetMyCommandsRequest = Type.Object(
  { commands: Type.Array(BotCommandSchema, { maxItems: MAX_COMMANDS }) },
  { title: "SetMyCommandsRequest" },
);

export interface BotDeps {
  actors: ActorSystem;
  botDeps: BotActorDeps;
}
export type RuntimeDeps = ConversationDeps & BotDeps;

export interface GetUpdatesQuery {
  offset?: number;
  limit?: number;
  timeout?: number;
}
export interface SendMessageRequest extends FormattedInput {
  chat_id: string;
  reply_markup?: Record<string, unknown>;
  /** A message of the same chat this one answers; kept as metadata.reply_to_message_id. */
  reply_to_message_id?: string | number;
  /** Telegram's: send anyway when the replied-to message is gone. */
  allow_sending_without_reply?: boolean;
  /** file_ids of this bot's files. */
  attachments?: string[];
}
export interface EditMessageTextRequest extends FormattedInput {
  message_id: string | number;
  reply_markup?: Record<string, unknown>;
}
export interface EditMessageReplyMarkupRequest {
  message_id: string | number;
  /** Absent: the keyboard is removed. */
  reply_markup?: Record<string, unknown>;
}

const COMMAND_NAME = /^[a-z0-9_]{1,32}$/;

export function botActor(deps: BotDeps, botId: string) {
  const ref = deps.actors.actorOf("bot", botId, () => new BotActor(deps.botDeps, botId, (work) => ref.tell(work)));
  return ref;
}

/** The bot token was rotated: polls parked with the old one end with 401 here and in every other process. */
export async function endPollsOfOldToken(deps: BotDeps & { bus: EventBus }, botId: string): Promise<void> {
  await botActor(deps, botId).ask((actor) => actor.endPollForRevokedToken());
  await deps.bus.publish(pollSubject(botId), { instance: "rotate-token", poll: "rotate-token", revoked: true }).catch(() => undefined);
}

export const botSender = (bot: Pick<DbBot, "number" | "name" | "username">): RuntimeSender => ({
  id: String(bot.number), first_name: bot.name, last_name: null, is_bot: true, username: bot.username,
});

const clamp = (value: number, min: number, max: number) => Math.min(max, Math.max(min, value));

export interface PollOptions {
  defaultTimeoutSeconds?: number;
}

/** Telegram's getUpdates: confirm below offset, clamp limit and timeout, park until an update. */
export async function getUpdates(deps: BotDeps & { db?: Db }, bot: DbBot, query: GetUpdatesQuery, options: PollOptions = {}): Promise<LogUpdate[]> {
  if (bot.webhook_url) throw conflict("can't use get-updates while a webhook is active; use delete-webhook first", "webhook_active");
  const limit = clamp(query.limit ?? UPDATES_DEFAULT_LIMIT, 1, UPDATES_MAX_LIMIT);
  const timeout = clamp(query.timeout ?? options.defaultTimeoutSeconds ?? POLL_DEFAULT_TIMEOUT_SECONDS, 0, POLL_MAX_TIMEOUT_SECONDS);
  // The bot has a backend: routing leaves its conversations to it (routing.ts).
  backendPolled(deps.db, bot.id);
  const { wait } = await admitPoll(deps.botDeps, bot.id, () =>
    botActor(deps, bot.id).ask((actor) => actor.poll({ offset: query.offset ?? 0, limit, timeoutMs: timeout * 1000 })),
  );
  return wait;
}

/** Sends into an existing chat of this bot; moves new → open; reaches the channel and live views. */
export async function sendMessage(
  deps: RuntimeDeps, bot: DbBot, body: SendMessageRequest, files?: StoredFile[],
): Promise<RuntimeMessage> {
  const replyMarkup = checkReplyMarkup(body.reply_markup);
  const attachments = files ?? (await resolveAttachments(deps.db, bot.id, body.attachments, null));
  requireTextOrFiles(body.text, attachments);
  const text = formatText(body);
  const conversation = await findConversationByChat(deps.db, bot.id, body.chat_id);
  if (!conversation) throw notFound("chat");
  const metadata = await replyMetadata(deps.db, bot, conversation.id, body);
  await botActor(deps, bot.id).ask((actor) => actor.takeSendToken());
  const { message, conversation: after } = await sendFromBot(deps, bot, conversation.chat_id, text, replyMarkup, metadata, attachments);
  return runtimeMessage(message, after, undefined, botSender(bot));
}

/** Telegram's reply: the message must be in the same chat (400 otherwise, unless allowed to send without it). */
async function replyMetadata(db: Db, bot: DbBot, conversationId: string, body: SendMessageRequest): Promise<Record<string, unknown>> {
  if (body.reply_to_message_id === undefined) return {};
  const target = await findMessageByBotMessageId(db, bot.id, Number(body.reply_to_message_id));
  if (target && !target.deleted_at && target.conversation_id === conversationId) return { reply_to_message_id: String(target.message_id) };
  if (body.allow_sending_without_reply) return {};
  throw badRequest("message to be replied not found");
}

/** Only this bot's own runtime messages, and only when they are still there. */
async function ownRuntimeMessage(deps: { db: Db }, bot: DbBot, messageId: string | number) {
  const message = await findMessageByBotMessageId(deps.db, bot.id, Number(messageId));
  if (!message || message.deleted_at) throw notFound("message");
  if (message.sender !== "bot") throw forbidden("only messages sent by this bot through the runtime API can be changed");
  const conversation = (await findConversationById(deps.db, message.conversation_id))!;
  return { message, conversation };
}

export async function editMessageText(deps: ConversationDeps, bot: DbBot, body: EditMessageTextRequest): Promise<RuntimeMessage> {
  const replyMarkup = checkReplyMarkup(body.reply_markup);
  const text = formatText(body);
  const { message, conversation } = await ownRuntimeMessage(deps, bot, body.message_id);
  const sameText = message.text === text.text && same(message.entities, text.entities);
  if (sameText && (replyMarkup === null || same(replyMarkup, message.reply_markup))) {
    throw badRequest("message is not modified: the new text is the same as the current one", "not_modified");
  }
  const edited = await editFromBot(deps, bot, conversation, message, text, replyMarkup);
  return runtimeMessage(edited, conversation, undefined, botSender(bot));
}

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** Telegram's editMessageReplyMarkup: the keyboard alone changes (removed when none is given); the text stays. */
export async function editMessageReplyMarkup(deps: ConversationDeps, bot: DbBot, body: EditMessageReplyMarkupRequest): Promise<RuntimeMessage> {
  const replyMarkup = checkReplyMarkup(body.reply_markup) ?? {};
  const { message, conversation } = await ownRuntimeMessage(deps, bot, body.message_id);
  if (same(message.reply_markup ?? {}, replyMarkup)) {
    throw badRequest("message is not modified: the new reply markup is the same as the current one", "not_modified");
  }
  const text = { text: message.text, entities: message.entities };
  const edited = await editFromBot(deps, bot, conversation, message, text, replyMarkup);
  return runtimeMessage(edited, conversation, undefined, botSender(bot));
}

export async function deleteMessage(deps: ConversationDeps & FileDeps, bot: DbBot, messageId: string | number): Promise<true> {
  const { message, conversation } = await ownRuntimeMessage(deps, bot, messageId);
  await deleteFromBot(deps, bot, conversation, message);
  return true;
}

/** docs/design.md §6: command ^[a-z0-9_]{1,32}$ after stripping one leading "/"; description 1..256. */
function normaliseCommands(commands: BotCommand[]): BotCommand[] {
  return commands.map((c, i) => {
    const command = c.command.replace(/^\//, "");
    if (!COMMAND_NAME.test(command)) {
      throw badRequest(`commands.${i}.command: must match ^[a-z0-9_]{1,32}$ (lowercase letters, digits, underscore)`);
    }
    if (c.description.trim() === "") throw badRequest(`commands.${i}.description: must not be blank`);
    return { command, description: c.description };
  });
}

export async function setMyCommands(deps: { db: Db }, bot: DbBot, commands: BotCommand[]): Promise<true> {
  await setCommands(deps.db, bot.id, normaliseCommands(commands));
  return true;
}

export const getMyCommands = (deps: { db: Db }, bot: DbBot) => getCommands(deps.db, bot.id);

export async function deleteMyCommands(deps: { db: Db }, bot: DbBot): Promise<true> {
  await setCommands(deps.db, bot.id, []);
  return true;
}

/** `<number>:<secret>`; anything else (a user JWT, garbage) is not a bot token. */
const BOT_TOKEN = /^\d{1,19}:[A-Za-z0-9_-]{20,128}$/;

/** The bot a bot token belongs to; 401 without one or for one that is not a current token. */
export async function botOfToken(deps: { db: Db }, token: string | undefined): Promise<DbBot> {
  if (!token) throw unauthorized("missing bot token: send Authorization: Bearer <bot token>");
  const bot = BOT_TOKEN.test(token) ? await findBotByTokenHash(deps.db, hashToken(token)) : undefined;
  if (!bot) throw unauthorized("invalid bot token");
  return bot;
}

export const botInfo = (bot: DbBot) => ({
  id: bot.id, number: bot.number, is_bot: true as const, first_name: bot.name, username: bot.username, description: bot.description,
});
