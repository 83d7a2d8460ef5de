// CORS for the public endpoints a widget or site form calls from other origins. Any origin
// may call them at the CORS level; a bot that lists `allowed_origins` in its widget
// config is protected by the services, which refuse other origins with 403 (see
// the widget channel in domain/channels.ts). The answer always names the caller's origin so that even a 403 or
// 429 is readable by the widget instead of surfacing as an opaque network error.
import { feature } from "./feature.ts";
import { requestPath } from "./paths.ts";

/** Paths browsers on customers' sites call directly. */
export const PUBLIC_CORS_PATHS: ReadonlySet<string> = new Set([
  "/api/messages",
  "/api/messages/stream",
  "/api/messages/callback-query",
  "/api/messages/rating",
  "/api/files",
  "/api/widget/config",
  "/api/widget/identity",
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
    if (!PUBLIC_CORS_PATHS.has(requestPath(request))) return;
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
