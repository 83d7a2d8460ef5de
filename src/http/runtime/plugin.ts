import { forbidden } from "../../core/errors.ts";
import type { Services } from "../../services.ts";
import { bearerToken } from "../auth/plugin.ts";
import { feature } from "../feature.ts";

export const BOT_SECURITY = [{ botBearerAuth: [] }];

/**
 * `{ bot: true }` resolves the calling bot from its token (401) and, on /api/bots/{id}/…
 * paths, refuses a valid token of another bot (403).
 */
export const botAuth = (services: Services) =>
  feature({ name: "bot-auth", seed: services.id }).macro({
    bot: {
      detail: { security: BOT_SECURITY },
      async resolve({ headers, params }) {
        const bot = await services.runtime.botOfToken(bearerToken(headers.authorization));
        const pathId = (params as Record<string, string | undefined> | undefined)?.id;
        if (pathId !== undefined && pathId !== bot.id) throw forbidden("this bot token belongs to another bot");
        return { bot };
      },
    },
  });
