// The facade's bot settings: the command list and the webhook methods, through the native
// services (src/http/runtime, src/webhooks) and the native request model. Only Telegram's
// default command scope exists here (DESIGN §6 has one list per bot).
import { Value } from "@sinclair/typebox/value";
import type { DbBot } from "../../db/bots.ts";
import type { BotCommand } from "../../db/commands.ts";
import type { Platform } from "../../platform.ts";
import { SetMyCommandsRequest } from "../runtime/model.ts";
import * as native from "../runtime/service.ts";
import * as webhooks from "../../webhooks/service.ts";
import { tgBadRequest } from "./errors.ts";
import type { Params, TelegramResult } from "./model.ts";
import { optionalArray, optionalBool, optionalObject, optionalString } from "./params.ts";

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

export async function setMyCommands(platform: Platform, bot: DbBot, params: Params): Promise<true> {
  const commands = optionalArray(params, "commands");
  if (commands === undefined) throw tgBadRequest("parameter \"commands\" is required");
  if (!isDefaultScope(params)) {
    throw tgBadRequest("only the default command scope without language_code is supported");
  }
  const first = Value.Errors(SetMyCommandsRequest, { commands }).First();
  if (first) throw tgBadRequest(`${first.path.replace(/^\//, "").replace(/\//g, ".")}: ${first.message}`);
  return native.setMyCommands(platform, bot, commands as BotCommand[]);
}

export async function getMyCommands(platform: Platform, bot: DbBot, params: Params): Promise<BotCommand[]> {
  return isDefaultScope(params) ? native.getMyCommands(platform, bot) : [];
}

export async function deleteMyCommands(platform: Platform, bot: DbBot, params: Params): Promise<true> {
  return isDefaultScope(params) ? native.deleteMyCommands(platform, bot) : true;
}

export const getWebhookInfo = (platform: Platform, bot: DbBot) => webhooks.getWebhookInfo(platform, bot);

export async function deleteWebhook(platform: Platform, bot: DbBot, params: Params): Promise<TelegramResult> {
  const drop = optionalBool(params, "drop_pending_updates") ?? false;
  const had = Boolean(bot.webhook_url);
  await webhooks.deleteWebhook(platform, bot, drop);
  return { result: true, description: had ? "Webhook was deleted" : "Webhook is already deleted" };
}

/**
 * An empty url is Telegram's other way to delete the webhook. Setting one is refused
 * until the webhook worker can deliver Telegram-shaped updates: a Telegram library would
 * not understand the native ones it sends now.
 * TODO(issue 7, webhook mode): pass it to the native set-webhook, marked as a Telegram-format webhook.
 */
export async function setWebhook(platform: Platform, bot: DbBot, params: Params): Promise<TelegramResult> {
  const url = optionalString(params, "url");
  if (url === undefined) throw tgBadRequest("parameter \"url\" is required");
  if (url === "") return deleteWebhook(platform, bot, params);
  throw tgBadRequest("setWebhook is not supported yet: use getUpdates (long polling)");
}
