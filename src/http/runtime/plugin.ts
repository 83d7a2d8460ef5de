import { findBotByTokenHash, type DbBot } from "../../db/bots.ts";
import { forbidden, unauthorized } from "../../core/errors.ts";
import type { Platform } from "../../platform.ts";
import { hashToken } from "../../secrets.ts";
import { bearerToken } from "../auth/plugin.ts";
import { feature } from "../feature.ts";

export const BOT_SECURITY = [{ botBearerAuth: [] }];

/** `<number>:<secret>`; anything else (a user JWT, garbage) is not a bot token. */
const BOT_TOKEN = /^\d{1,19}:[A-Za-z0-9_-]{20,128}$/;

export async function botFromToken(platform: Platform, token: string | undefined): Promise<DbBot> {
  if (!token) throw unauthorized("missing bot token: send Authorization: Bearer <bot token>");
  const bot = BOT_TOKEN.test(token) ? await findBotByTokenHash(platform.db, hashToken(token)) : undefined;
  if (!bot) throw unauthorized("invalid bot token");
  return bot;
}

/**
 * `{ bot: true }` resolves the calling bot from its token (401) and, on /api/bots/{id}/…
 * paths, refuses a valid token of another bot (403).
 */
export const botAuth = (platform: Platform) =>
  feature({ name: "bot-auth", seed: platform.id }).macro({
    bot: {
      detail: { security: BOT_SECURITY },
      async resolve({ headers, params }) {
        const bot = await botFromToken(platform, bearerToken(headers.authorization));
        const pathId = (params as Record<string, string | undefined> | undefined)?.id;
        if (pathId !== undefined && pathId !== bot.id) throw forbidden("this bot token belongs to another bot");
        return { bot };
      },
    },
  });
