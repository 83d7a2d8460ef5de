// What every public endpoint (widget, API senders, form plugin: no token) checks before its
// handler, as a macro beside the user and bot auth macros: the bot the request names, that
// bot's per-minute limit, and the widget's Origin allow-list. The per-IP limit is counted on
// arrival (guard.ts), so requests failing validation count too.
import type { Services } from "../services.ts";
import { feature } from "./feature.ts";
import type { SignedRequest } from "../domain/visitor.ts";
import { SIGNATURE_HEADER, TIMESTAMP_HEADER } from "../delivery/signature.ts";

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

const namedBot = (services: Services, from: PublicBotOptions["from"], named: Named) =>
  from === "integration_key" ? services.public.botByIntegrationKey(named.integration_key ?? "") : services.public.bot(named.bot_id, named.widget_key);

/** `{ publicBot: { from, limit?, origin? } }` resolves `publicBot`, the bot the request names (400/404, 429, 403). */
export const publicAccess = (services: Services) =>
  feature({ name: "public-access", seed: services.id }).macro({
    publicBot: (options: PublicBotOptions) => ({
      async resolve({ body, query, request }: { body: unknown; query: unknown; request: Request }) {
        const named = ((options.from === "query" ? query : body) ?? {}) as Named;
        const bot = await namedBot(services, options.from, named);
        if (options.limit) services.limits.publicBot(bot.id);
        if (options.origin) await services.public.checkOrigin(bot, request.headers.get("origin"));
        return { publicBot: bot };
      },
    }),
  });

/**
 * The raw request a channel's signature is checked over; undefined when unsigned. The guard
 * kept the JSON body's text (guard.ts readJsonOnce), so this reads no stream twice.
 */
export async function signedRequest(request: Request): Promise<SignedRequest | undefined> {
  const signature = request.headers.get(SIGNATURE_HEADER);
  if (!signature) return undefined;
  const body = await request.text().catch(() => "");
  return { signature, timestamp: request.headers.get(TIMESTAMP_HEADER), body };
}
