// The Telegram-compatible facade's methods (docs/design.md §11): each reads Telegram's parameters,
// calls the native runtime service (src/domain/runtime.ts) with them translated,
// and writes the answer in Telegram's shapes. Nothing here stores or decides on its own.
import type { DbBot } from "../db/bots.ts";
import { findTelegramChatByChatId, findTelegramChatByNumber, findTelegramMessageRefs, type TelegramChatRow, type TelegramMessageRef } from "../db/telegram.ts";
import { AppError } from "../core/errors.ts";
import type { TypingEvent } from "../core/events.ts";
import { eventSubject } from "../core/subjects.ts";
import type { TelegramDeps } from "./deps.ts";
import type { LogUpdate } from "../updates/log.ts";
import { MAX_TEXT_LENGTH } from "../core/limits.ts";
import { POLL_MAX_TIMEOUT_SECONDS } from "../domain/runtime.ts";
import * as native from "../domain/runtime.ts";
import {
  fromAppError, tgBadRequest, tgMethodNotFound, TelegramError, TG_TERMINATED_BY_OTHER_POLL, TG_WEBHOOK_ACTIVE,
} from "./errors.ts";
import { UPDATE_KINDS, type UpdateKind } from "../core/updates.ts";
import { BUTTON_METHODS } from "./buttons.ts";
import { PROFILE_METHODS } from "./profile.ts";
import { COPY_METHODS } from "./copy.ts";
import { MEDIA_METHODS } from "./media.ts";
import { KNOWN_TELEGRAM_METHODS } from "./known.ts";
import { CHAT_ACTIONS, type Method, type Params, type TelegramResult, type TgMessage, type TgUpdate } from "./model.ts";
import { optionalArray, optionalInt, optionalString, requireChat } from "./params.ts";
import { findChat, formatting, replyTo, nativeRefusal, ownMessage, replyMarkup, requireText } from "./lookup.ts";
import { botUser, chatOfRef, chatOfRow, getMeResult, nativeMessages, toTgMessage, toTgUpdates } from "./shapes.ts";
import { deleteMyCommands, deleteWebhook, getMyCommands, getWebhookInfo, setMyCommands, setWebhook } from "./settings.ts";

/** Telegram's default: libraries call getUpdates without a timeout when they stop and expect an answer at once. */
const FACADE_DEFAULT_TIMEOUT_SECONDS = 0;

const done = (result: unknown): TelegramResult => ({ result });

/** Telegram's method names, lowercased: Telegram matches them case-insensitively. */
const METHODS: Record<string, Method> = {
  getme: async (_deps, bot) => done(getMeResult(bot)),
  getupdates: async (deps, bot, params) => done(await getUpdates(deps, bot, params)),
  sendmessage: async (deps, bot, params) => done(await sendMessage(deps, bot, params)),
  editmessagetext: async (deps, bot, params) => done(await editMessageText(deps, bot, params)),
  deletemessage: async (deps, bot, params) => done(await deleteMessage(deps, bot, params)),
  sendchataction: async (deps, bot, params) => done(await sendChatAction(deps, bot, params)),
  setmycommands: async (deps, bot, params) => done(await setMyCommands(deps, bot, params)),
  getmycommands: async (deps, bot, params) => done(await getMyCommands(deps, bot, params)),
  deletemycommands: async (deps, bot, params) => done(await deleteMyCommands(deps, bot, params)),
  setwebhook: (deps, bot, params) => setWebhook(deps, bot, params),
  deletewebhook: (deps, bot, params) => deleteWebhook(deps, bot, params),
  getwebhookinfo: async (deps, bot) => done(await getWebhookInfo(deps, bot)),
  // Sessions with Telegram's cloud servers do not exist here: nothing to log out of or close.
  logout: async () => done(true),
  close: async () => done(true),
  ...BUTTON_METHODS,
  ...PROFILE_METHODS,
  ...COPY_METHODS,
  ...MEDIA_METHODS,
};

export async function callMethod(deps: TelegramDeps, bot: DbBot, method: string, params: Params): Promise<TelegramResult> {
  const name = method.toLowerCase();
  const run = METHODS[name];
  if (!run) throw KNOWN_TELEGRAM_METHODS.has(name) ? tgBadRequest("method is not supported by this server") : tgMethodNotFound();
  try {
    return await run(deps, bot, params);
  } catch (err) {
    throw err instanceof AppError ? fromAppError(err) : err;
  }
}

const kindOf = (u: LogUpdate): UpdateKind | undefined => UPDATE_KINDS.find((k) => u.payload[k] !== undefined);

/** allowed_updates filters per call (Telegram stores it per bot); empty or absent means every kind. */
function allowedKinds(params: Params): Set<string> | undefined {
  const list = optionalArray(params, "allowed_updates");
  if (!list || list.length === 0) return undefined;
  return new Set(list.filter((k): k is string => typeof k === "string"));
}

async function pollNative(deps: TelegramDeps, bot: DbBot, query: { offset?: number; limit?: number; timeout?: number }) {
  try {
    return await native.getUpdates(deps, bot, query, { defaultTimeoutSeconds: FACADE_DEFAULT_TIMEOUT_SECONDS });
  } catch (err) {
    if (err instanceof AppError && err.code === "conflict") {
      throw new TelegramError(409, err.reason === "poll_superseded" ? TG_TERMINATED_BY_OTHER_POLL : TG_WEBHOOK_ACTIVE);
    }
    throw err;
  }
}

async function getUpdates(deps: TelegramDeps, bot: DbBot, params: Params): Promise<TgUpdate[]> {
  let offset = optionalInt(params, "offset");
  const limit = optionalInt(params, "limit");
  let timeout = optionalInt(params, "timeout");
  const allowed = allowedKinds(params);
  const deadline = Date.now() + Math.min(Math.max(timeout ?? 0, 0), POLL_MAX_TIMEOUT_SECONDS) * 1000;
  for (;;) {
    const batch = await pollNative(deps, bot, { offset, limit, timeout });
    const kept = allowed ? batch.filter((u) => allowed.has(kindOf(u) ?? "")) : batch;
    if (kept.length > 0 || batch.length === 0) return toTelegramUpdates(deps, bot, kept);
    // Everything was of a kind the client excluded: confirm it, as Telegram never queues those, and wait on.
    offset = batch.at(-1)!.update_id + 1;
    timeout = Math.max(0, Math.floor((deadline - Date.now()) / 1000));
  }
}

/** Telegram-shaped updates with one lookup for the whole batch (getUpdates, and the webhook worker for "telegram" webhooks). */
export async function toTelegramUpdates(deps: TelegramDeps, bot: DbBot, updates: LogUpdate[]): Promise<TgUpdate[]> {
  const ids = nativeMessages(updates).map((n) => Number(n.message.message_id));
  const refs = await findTelegramMessageRefs(deps.db, bot.id, ids);
  return toTgUpdates(bot, updates, refs);
}

async function sendMessage(deps: TelegramDeps, bot: DbBot, params: Params): Promise<TgMessage> {
  const chatRef = requireChat(params);
  const text = requireText(params);
  const markup = replyMarkup(params);
  const chat = await findChat(deps, bot, chatRef);
  const sent = await native.sendMessage(deps, bot, { chat_id: chat.chat_id, text, ...formatting(params), reply_markup: markup, ...replyTo(params) });
  return toTgMessage(sent, chatOfRow(chat), botUser(bot));
}

async function editMessageText(deps: TelegramDeps, bot: DbBot, params: Params): Promise<TgMessage> {
  if (optionalString(params, "inline_message_id")) throw tgBadRequest("inline messages are not supported: use chat_id and message_id");
  const text = requireText(params);
  const markup = replyMarkup(params);
  const ref = await ownMessage(deps, bot, params, "edit");
  const edited = await native
    .editMessageText(deps, bot, { message_id: Number(ref.message_id), text, ...formatting(params), reply_markup: markup })
    .catch((err: unknown) => Promise.reject(nativeRefusal(err, "edit")));
  return toTgMessage(edited, chatOfRef(ref, edited.chat.channel), botUser(bot));
}

async function deleteMessage(deps: TelegramDeps, bot: DbBot, params: Params): Promise<true> {
  const ref = await ownMessage(deps, bot, params, "delete");
  return native.deleteMessage(deps, bot, Number(ref.message_id)).catch((err: unknown) => Promise.reject(nativeRefusal(err, "delete")));
}

/** Accepted for any chat of the bot; "typing" is announced on the bus for live views (widget, inbox). */
async function sendChatAction(deps: TelegramDeps, bot: DbBot, params: Params): Promise<true> {
  const chat = await findChat(deps, bot, requireChat(params));
  const action = optionalString(params, "action");
  if (!action || !CHAT_ACTIONS.has(action)) throw tgBadRequest("wrong parameter action in request");
  if (action === "typing") {
    // events.<owner>.<kind> as every event; a notification only, so a failed publish is not the caller's problem.
    const event: TypingEvent = { kind: "typing", owner_id: bot.owner_id, bot_id: bot.id, conversation_id: chat.id, chat_id: chat.chat_id, channel: chat.channel };
    deps.bus.publish(eventSubject(event), event).catch((err: unknown) => deps.logger.warn({ err }, "typing event publish failed"));
  }
  return true;
}
