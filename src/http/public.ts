// What every public endpoint (widget, API senders, form plugin: no token) checks before its
// handler, as a macro beside the user and bot auth macros: the bot the request names, that
// bot's per-minute limit, and the widget's Origin allow-list. The per-IP limit is counted on
// arrival (guard.ts), so requests failing validation count too.
import { findBotByIntegrationKey, type DbBot } from "../db/bots.ts";
import { notFound } from "../core/errors.ts";
import type { Platform } from "../platform.ts";
import { MINUTE_MS } from "../ratelimit.ts";
import { checkWidgetOrigin } from "./cors.ts";
import { feature } from "./feature.ts";
import { selectBot } from "../domain/intake.ts";

export interface PublicBotOptions {
  /** Where the request names its bot: bot_id/widget_key in the body or query, or the form plugin's integration_key. */
  from: "body" | "query" | "integration_key";
  /** Count the request against the bot's limit (RATE_LIMIT_PUBLIC_PER_BOT). */
  limit?: boolean;
  /** Refuse a browser Origin the widget's allowed_origins does not list. */
  origin?: boolean;
}

interface Named {
  bot_id?: string;
  widget_key?: string;
  integration_key?: string;
}

export function limitPerBot(platform: Platform, botId: string): void {
  platform.limiter.take(`public-bot:${botId}`, platform.config.limits.publicPerBot, MINUTE_MS);
}

async function namedBot(platform: Platform, from: PublicBotOptions["from"], named: Named): Promise<DbBot> {
  if (from !== "integration_key") return selectBot(platform, named.bot_id, named.widget_key);
  const bot = await findBotByIntegrationKey(platform.db, named.integration_key ?? "");
  if (!bot) throw notFound("integration");
  return bot;
}

/** `{ publicBot: { from, limit?, origin? } }` resolves `publicBot`, the bot the request names (400/404, 429, 403). */
export const publicAccess = (platform: Platform) =>
  feature({ name: "public-access", seed: platform.id }).macro({
    publicBot: (options: PublicBotOptions) => ({
      async resolve({ body, query, request }: { body: unknown; query: unknown; request: Request }) {
        const named = ((options.from === "query" ? query : body) ?? {}) as Named;
        const bot = await namedBot(platform, options.from, named);
        if (options.limit) limitPerBot(platform, bot.id);
        if (options.origin) await checkWidgetOrigin(platform, bot.id, request.headers.get("origin"));
        return { publicBot: bot };
      },
    }),
  });
