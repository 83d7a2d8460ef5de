// /bot<token>/<method>: the Telegram Bot API's own address scheme (docs/design.md §11), so a
// Telegram client library only needs its API root changed. GET or POST, any method name
// case; every answer, errors included, is in Telegram's envelope, never the native one.
import { AppError, asBadInput, asOutage } from "../../core/errors.ts";
import type { Services } from "../../services.ts";
import { feature } from "../feature.ts";
import { attributeToBot } from "../access-log.ts";
import { fromAppError, INTERNAL_ERROR, telegramErrorResponse, TelegramError } from "../../telegram/errors.ts";
import { readParams } from "../../telegram/params.ts";
import { fileIdOfPath } from "../../telegram/media-shapes.ts";
import { serveFile } from "../files/serve.ts";

function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** /file/bot<token>/<file_path>: what getFile's file_path names, for this bot only (Telegram's 404 otherwise). */
async function downloadFile(services: Services, token: string, path: string, request: Request): Promise<Response> {
  const bot = await services.runtime.botOfToken(decoded(token)).catch(() => undefined);
  if (!bot) return telegramErrorResponse(new TelegramError(401, "Unauthorized"));
  const file = await services.files.botFile(bot, fileIdOfPath(decoded(path)));
  return file ? serveFile(file, request) : telegramErrorResponse(new TelegramError(404, "Not Found"));
}

export const telegramRoutes = (services: Services) =>
  feature({ name: "telegram", seed: services.id })
  .get("/file/bot:token/*", ({ params, request }) => {
    const { token, "*": path } = params as unknown as { token: string; "*": string };
    return downloadFile(services, token, path, request);
  }, { detail: { hide: true } })
  .all(
    "/bot:token/:method",
    async ({ params, request }) => {
      // Elysia's path typing does not see a parameter glued to the "bot" prefix; its router does.
      const { token, method } = params as unknown as { token: string; method: string };
      try {
        // An unknown token is the native 401, which fromAppError writes as Telegram's bare "Unauthorized".
        const bot = await services.runtime.botOfToken(decoded(token));
        attributeToBot(request, bot.id);
        const { result, description } = await services.telegram.call(bot, decoded(method), await readParams(request, services.telegram.partStore(bot)));
        return Response.json(description ? { ok: true, result, description } : { ok: true, result });
      } catch (raised) {
        const err = asBadInput(asOutage(raised));
        if (err instanceof TelegramError) return telegramErrorResponse(err);
        if (err instanceof AppError) return telegramErrorResponse(fromAppError(err));
        // Not the URL: it carries the bot token.
        services.log.error({ err, method: decoded(method) }, "telegram facade: unhandled error");
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
