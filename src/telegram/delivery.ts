// What a "telegram" webhook (set through the Telegram-compatible facade) needs from the
// facade: updates in Telegram's shape, converted exactly as getUpdates converts them, and
// Telegram's "webhook reply": a 2xx answer whose body names a `method` is executed as the
// bot through the facade's own dispatcher, as if the bot had called it over HTTP.
import type { TelegramDelivery } from "../delivery/webhook.ts";
import { findBotById } from "../db/bots.ts";
import { AppError } from "../core/errors.ts";
import { fromAppError, TelegramError } from "./errors.ts";
import { readParams } from "./params.ts";
import { callMethod, toTelegramUpdates } from "./methods.ts";
import type { TelegramDeps } from "./deps.ts";
import type { ResponseBody } from "../delivery/http.ts";

/** Why: the answer is parsed as a request to the facade would be; this address is never fetched. */
const REPLY_REQUEST_URL = "http://webhook-reply.invalid/";

/** The error sentence of a failed webhook reply, in Telegram's words as the bot would have got them. */
function describe(err: unknown): string | undefined {
  if (err instanceof TelegramError) return err.description;
  if (err instanceof AppError) return fromAppError(err).description;
  return undefined;
}

export function telegramDelivery(deps: TelegramDeps): TelegramDelivery {
  return {
    async shape(botId, updates) {
      const bot = await findBotById(deps.db, botId);
      // A bot deleted meanwhile: its updates keep their ids only, as getUpdates writes unknown ones.
      if (!bot) return updates.map((u) => ({ update_id: u.update_id }));
      return toTelegramUpdates(deps, bot, updates);
    },

    async reply(botId, body: ResponseBody) {
      let method: unknown;
      try {
        // JSON, urlencoded or multipart, even compressed: what Telegram accepts as an answer.
        const params = await readParams(new Request(REPLY_REQUEST_URL, { method: "POST", headers: body.headers, body: body.bytes as BodyInit }));
        method = params.method;
        // An answer that names no method (Telegraf's empty 200, "ok", {}) is only a success.
        if (typeof method !== "string" || method === "") return undefined;
        delete params.method;
        const bot = await findBotById(deps.db, botId);
        if (!bot) return `webhook reply ${method}: the bot no longer exists`;
        await callMethod(deps, bot, method, params);
        return undefined;
      } catch (err) {
        const what = typeof method === "string" ? `webhook reply ${method}` : "webhook reply";
        const description = describe(err);
        if (description) return `${what}: ${description}`;
        deps.logger.error({ err, bot: botId }, "webhook reply failed unexpectedly");
        return `${what}: Internal Server Error`;
      }
    },
  };
}
