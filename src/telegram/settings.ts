// The facade's bot settings: the command list and the webhook methods, through the native
// services (src/http/runtime, src/webhooks) and the native request model; a webhook set
// here is marked "telegram" (Telegram-shaped deliveries, webhook replies). Only Telegram's
// default command scope exists here (docs/design.md §6 has one list per bot).
import { Value } from "@sinclair/typebox/value";
import type { DbBot } from "../db/bots.ts";
import type { BotCommand } from "../db/commands.ts";
import type { TelegramDeps } from "./deps.ts";
import * as native from "../domain/runtime.ts";
import { SetMyCommandsRequest } from "../domain/runtime.ts";
import * as webhooks from "../domain/webhooks.ts";
import { UPDATE_KINDS, type UpdateKind } from "../core/updates.ts";
import { AppError } from "../core/errors.ts";
import { MAX_URL_LENGTH } from "../core/limits.ts";
import { tgBadRequest } from "./errors.ts";
import type { Params, TelegramResult } from "./model.ts";
import { optionalArray, optionalBool, optionalInt, optionalObject, optionalString } from "./params.ts";

/**
 * Only the default scope without a language is stored. Another scope or a language_code
 * is refused on set (storing it as the default would show the wrong list to everyone) and
 * reads as empty on get and delete, which is what Telegram answers for a scope never set.
 */
function isDefaultScope(params: Params): boolean {
  const scope = optionalObject(params, "scope", "BotCommandScope");
  const language = optionalString(params, "language_code");
  return (scope === undefined || scope.type === "default") && !language;
}

export async function setMyCommands(deps: TelegramDeps, bot: DbBot, params: Params): Promise<true> {
  const commands = optionalArray(params, "commands");
  if (commands === undefined) throw tgBadRequest("parameter \"commands\" is required");
  if (!isDefaultScope(params)) {
    throw tgBadRequest("only the default command scope without language_code is supported");
  }
  const first = Value.Errors(SetMyCommandsRequest, { commands }).First();
  if (first) throw tgBadRequest(`${first.path.replace(/^\//, "").replace(/\//g, ".")}: ${first.message}`);
  return native.setMyCommands(deps, bot, commands as BotCommand[]);
}

export async function getMyCommands(deps: TelegramDeps, bot: DbBot, params: Params): Promise<BotCommand[]> {
  return isDefaultScope(params) ? native.getMyCommands(deps, bot) : [];
}

export async function deleteMyCommands(deps: TelegramDeps, bot: DbBot, params: Params): Promise<true> {
  return isDefaultScope(params) ? native.deleteMyCommands(deps, bot) : true;
}

export const getWebhookInfo = (deps: TelegramDeps, bot: DbBot) => webhooks.getWebhookInfo(deps, bot);

export async function deleteWebhook(deps: TelegramDeps, bot: DbBot, params: Params): Promise<TelegramResult> {
  const drop = optionalBool(params, "drop_pending_updates") ?? false;
  const had = Boolean(bot.webhook_url);
  await webhooks.deleteWebhook(deps, bot, drop);
  return { result: true, description: had ? "Webhook was deleted" : "Webhook is already deleted" };
}

/**
 * Telegram's allowed_updates in our kinds: an empty list means every kind (Telegram's
 * default set), and kinds the server never produces (callback_query, …) are left out,
 * so a list naming only those delivers none of ours, as Telegram would.
 */
function allowedUpdates(params: Params): UpdateKind[] | undefined {
  const list = optionalArray(params, "allowed_updates");
  if (list === undefined) return undefined;
  if (list.length === 0) return [...UPDATE_KINDS];
  return UPDATE_KINDS.filter((kind) => list.includes(kind));
}

/**
 * The native set-webhook, marked "telegram": the worker then sends Telegram-shaped
 * updates and executes a method named in the receiver's answer. An empty or missing url
 * is Telegram's other way to delete the webhook. `certificate` and `ip_address` are accepted
 * and ignored: the address is resolved (and checked) at every delivery.
 */
export async function setWebhook(deps: TelegramDeps, bot: DbBot, params: Params): Promise<TelegramResult> {
  const url = optionalString(params, "url");
  // Telegram reads a missing url as empty (telebot clears its webhook this way at launch).
  if (url === undefined || url === "") return deleteWebhook(deps, bot, params);
  if (url.length > MAX_URL_LENGTH) throw tgBadRequest("bad webhook: URL is too long");
  const input: webhooks.SetWebhookInput = {
    url,
    secret_token: optionalString(params, "secret_token") || undefined,
    max_connections: optionalInt(params, "max_connections"),
    allowed_updates: allowedUpdates(params),
    drop_pending_updates: optionalBool(params, "drop_pending_updates"),
  };
  try {
    await webhooks.setWebhook(deps, bot, input, "telegram");
  } catch (err) {
    // Telegram words every refusal of the URL or its settings as a "bad webhook".
    if (err instanceof AppError && err.code === "bad_request") throw tgBadRequest(`bad webhook: ${err.message}`);
    throw err;
  }
  return { result: true, description: "Webhook was set" };
}
