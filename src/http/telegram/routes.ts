// /bot<token>/<method>: the Telegram Bot API's own address scheme (DESIGN §11), so a
// Telegram client library only needs its API root changed. GET or POST, any method name
// case; every answer, errors included, is in Telegram's envelope, never the native one.
import { AppError, asBadInput, asOutage } from "../../core/errors.ts";
import type { Platform } from "../../platform.ts";
import { feature } from "../feature.ts";
import { attributeToBot } from "../access-log.ts";
import { botFromToken } from "../runtime/plugin.ts";
import { fromAppError, INTERNAL_ERROR, telegramErrorResponse, TelegramError } from "../../telegram/errors.ts";
import { readParams } from "../../telegram/params.ts";
import { callMethod } from "../../telegram/methods.ts";

function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

export const telegramRoutes = (platform: Platform) =>
  feature({ name: "telegram", seed: platform.id }).all(
    "/bot:token/:method",
    async ({ params, request }) => {
      // Elysia's path typing does not see a parameter glued to the "bot" prefix; its router does.
      const { token, method } = params as unknown as { token: string; method: string };
      try {
        // An unknown token is the native 401, which fromAppError writes as Telegram's bare "Unauthorized".
        const bot = await botFromToken(platform, decoded(token));
        attributeToBot(request, bot.id);
        const { result, description } = await callMethod(platform, bot, decoded(method), await readParams(request));
        return Response.json(description ? { ok: true, result, description } : { ok: true, result });
      } catch (raised) {
        const err = asBadInput(asOutage(raised));
        if (err instanceof TelegramError) return telegramErrorResponse(err);
        if (err instanceof AppError) return telegramErrorResponse(fromAppError(err));
        // Not the URL: it carries the bot token.
        platform.logger.error({ err, method: decoded(method) }, "telegram facade: unhandled error");
        return telegramErrorResponse(INTERNAL_ERROR);
      }
    },
    {
      // Telegram clients send JSON, urlencoded or multipart, and a malformed body must get
      // Telegram's envelope: the body is read by readParams, not by Elysia's parsers.
      parse: "none",
      // Telegram's own documentation describes these methods; the native runtime is what /swagger documents.
      detail: { hide: true },
    },
  );
