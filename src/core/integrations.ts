// Contracts of the integrations: the event kinds an event webhook can follow, its signature
// header, and the scopes of personal API tokens. No I/O.
/** What an event webhook can follow (docs: README "Event webhooks"). */
export const EVENT_WEBHOOK_EVENTS = ["conversation_created", "conversation_updated", "message_created", "contact_updated"] as const;
export type EventWebhookEvent = (typeof EVENT_WEBHOOK_EVENTS)[number];

/** Why: a bot's integrations (a CRM, an automation tool, a log) are a handful; more is someone flooding the delivery queue. */
export const MAX_EVENT_WEBHOOKS_PER_BOT = 10;

export const EVENT_SIGNATURE_HEADER = "X-Botinbox-Signature";
export const EVENT_ID_HEADER = "X-Botinbox-Event-Id";

/** Personal API token scopes: reading the inbox, replying and changing conversations, managing bots. */
export const API_TOKEN_SCOPES = ["inbox:read", "inbox:write", "bots:admin"] as const;
export type ApiTokenScope = (typeof API_TOKEN_SCOPES)[number];

/** Every personal API token starts with this, so secret scanners and people recognise one. */
export const API_TOKEN_PREFIX = "bi_pat_";

/** Why: a user's scripts and integrations are a few dozen at most; more is a leak waiting to happen. */
export const MAX_API_TOKENS_PER_USER = 50;

/** Why: last use is shown to the minute or so; writing it on every request would cost a row update per call. */
export const API_TOKEN_TOUCH_INTERVAL_MS = 60_000;

/**
 * The scope a user-token request needs, by method and path; undefined: tokens may not call it
 * (sessions, passwords, token management stay with a person's login).
 */
export function scopeOfRequest(method: string, path: string): ApiTokenScope | undefined {
  const read = method === "GET" || method === "HEAD";
  if (path.startsWith("/api/inbox") || path === "/api/files" || path.startsWith("/api/files/")) return read ? "inbox:read" : "inbox:write";
  // Listing bots is what an inbox client does first; changing them is administration.
  if (read && /^\/api\/bots(\/[^/]+)?$/.test(path)) return "inbox:read";
  if (path === "/api/bots" || path.startsWith("/api/bots/")) return "bots:admin";
  return undefined;
}
