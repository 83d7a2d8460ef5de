// CORS for the public endpoints a widget or site form calls from other origins. Any origin
// may call them at the CORS level; a bot that lists `allowed_origins` in its widget
// config is protected by the services, which refuse other origins with 403 (see
// checkWidgetOrigin). The answer always names the caller's origin so that even a 403 or
// 429 is readable by the widget instead of surfacing as an opaque network error.
import { forbidden } from "../core/errors.ts";
import type { Platform } from "../platform.ts";
import { feature } from "./feature.ts";

/** Paths browsers on customers' sites call directly. */
export const PUBLIC_CORS_PATHS: ReadonlySet<string> = new Set([
  "/api/messages",
  "/api/messages/stream",
  "/api/messages/callback-query",
  "/api/widget/config",
  "/api/integrations/sitecms/forms-plugin",
]);

/** Browsers may reuse a preflight answer this long (seconds); Chromium caps it at 7200. */
export const PREFLIGHT_MAX_AGE_SECONDS = 600;

const ALLOW_METHODS = "GET, POST, OPTIONS";
/** content-type (JSON bodies), Idempotency-Key (retries), Last-Event-ID (stream resume). */
const ALLOW_HEADERS = "content-type, idempotency-key, last-event-id";
/** Retry-After tells the widget how long to slow down after a 429. */
const EXPOSE_HEADERS = "retry-after, x-request-id";

function corsHeaders(origin: string | null): Record<string, string> {
  return {
    "access-control-allow-origin": origin ?? "*",
    "access-control-expose-headers": EXPOSE_HEADERS,
    vary: "Origin",
  };
}

export const publicCors = () =>
  feature({ name: "public-cors" }).onRequest(({ request, set }) => {
    if (!PUBLIC_CORS_PATHS.has(new URL(request.url).pathname)) return;
    const origin = request.headers.get("origin");
    if (request.method === "OPTIONS") {
      return new Response(null, {
        status: 204,
        headers: {
          ...corsHeaders(origin),
          "access-control-allow-methods": ALLOW_METHODS,
          "access-control-allow-headers": ALLOW_HEADERS,
          "access-control-max-age": String(PREFLIGHT_MAX_AGE_SECONDS),
        },
      });
    }
    Object.assign(set.headers, corsHeaders(origin));
  });

/** "https://Shop.example/" and "https://shop.example" are the same origin. */
const normaliseOrigin = (origin: string) => origin.trim().replace(/\/+$/, "").toLowerCase();

/** The widget channel's allowed_origins, or undefined when it sets none (every origin may call). */
export function allowedOrigins(config: Record<string, unknown> | undefined): string[] | undefined {
  const list = config?.allowed_origins;
  if (!Array.isArray(list)) return undefined;
  const origins = list.filter((o): o is string => typeof o === "string").map(normaliseOrigin);
  return origins.length ? origins : undefined;
}

/**
 * A browser on an origin the bot's widget config does not list is refused (403). Requests
 * without an Origin header (servers, curl) pass: the header only protects browsers, and
 * anything else could forge it anyway.
 */
export async function checkWidgetOrigin(platform: Platform, botId: string, origin: string | null): Promise<void> {
  if (origin === null) return;
  const allowed = allowedOrigins((await platform.bots.channel(botId, "widget"))?.config);
  requireListedOrigin(allowed, origin);
}

export function requireListedOrigin(allowed: string[] | undefined, origin: string | null): void {
  if (origin === null || !allowed) return;
  if (!allowed.includes(normaliseOrigin(origin))) throw forbidden(`origin ${origin} is not in this widget's allowed_origins`);
}

