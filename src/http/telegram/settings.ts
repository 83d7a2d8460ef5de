// The facade's bot settings: the command list and the webhook methods. Commands go
// through the native service and the native request model; only Telegram's default
// scope exists here (DESIGN §6 has one list per bot).
import { Value } from "@sinclair/typebox/value";
import type { DbBot } from "../../db/bots.ts";
import type { BotCommand } from "../../db/commands.ts";
import type { Platform } from "../../platform.ts";
import { SetMyCommandsRequest } from "../runtime/model.ts";
import * as native from "../runtime/service.ts";
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

export async function getWebhookInfo(platform: Platform, bot: DbBot) {
  return {
    url: bot.webhook_url ?? "",
    has_custom_certificate: false,
    pending_update_count: await platform.updates.pendingCount(bot.id),
  };
}

/**
 * Long polling needs no webhook, and libraries call this before they poll. Removing a
 * webhook that is set belongs to the native webhook service (not built yet), so that
 * case is refused rather than answered with a `true` that would not be true.
 * TODO(issue 7, webhook mode): call the native delete-webhook once it exists.
 */
export async function deleteWebhook(platform: Platform, bot: DbBot, params: Params): Promise<TelegramResult> {
  const drop = optionalBool(params, "drop_pending_updates");
  if (bot.webhook_url) throw tgBadRequest("deleting a webhook through this API is not supported yet");
  if (drop) await platform.updates.drop(bot.id);
  return { result: true, description: "Webhook is already deleted" };
}

/**
 * An empty url is Telegram's other way to delete the webhook.
 * TODO(issue 7, webhook mode): set the webhook through the native service once it exists.
 */
export async function setWebhook(platform: Platform, bot: DbBot, params: Params): Promise<TelegramResult> {
  const url = optionalString(params, "url");
  if (url === undefined) throw tgBadRequest("parameter \"url\" is required");
  if (url === "") return deleteWebhook(platform, bot, params);
  throw tgBadRequest("setWebhook is not supported yet: use getUpdates (long polling)");
}
