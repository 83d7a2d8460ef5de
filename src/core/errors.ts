// The one error catalogue: domain code → HTTP status. Services throw AppError with a code;
// the HTTP front's single onError turns it into the envelope {ok:false, error, error_code}.

export const ERROR_STATUS = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/**
 * Finer than the code, for callers that answer cases of one code differently (the Telegram
 * facade words them as Telegram does). Stable data to match on: messages are for people.
 */
export type ErrorReason =
  | "poll_superseded" // a newer get-updates for the bot took over (409)
  | "webhook_active" // get-updates while a webhook is set (409)
  | "not_modified" // an edit that changes nothing (400)
  | "bad_entities" // parse_mode markup or entities that cannot be read (400, Telegram's "can't parse entities")
  | "query_expired" // answerCallbackQuery for an unknown or already answered press (400)
  | "reset_token_invalid" // a password reset token that is unknown, used or expired (400)
  | "chat_of_other_channel" // a chat_id whose conversation another channel created (409)
  | "reserved_chat_id" // a public writer naming a chat id of the server's own namespace (400)
  | "reserved_metadata" // a public writer setting metadata only the server sets (400)
  | "signature_required" // a channel that requires signed requests got an unsigned or badly signed one (401)
  | "session_revoked" // a user token logged out, or issued before a password change (401)
  | "wrong_file_id" // a file_id that is not this bot's or this chat's (400, Telegram's "wrong file identifier")
  | "already_rated" // a second rating of one conversation (409)
  | "not_closed" // a rating of a conversation that is not closed (409)
  | "identity_invalid" // a widget visitor's user_hash that does not match their user_id (401)
  | "identity_required"; // a verified user's chat named without their user_id and user_hash (401)

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** seconds, for rate_limited and unavailable */
    readonly retryAfter?: number,
    readonly reason?: ErrorReason,
  ) {
    super(message);
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }
}

export const badRequest = (message: string, reason?: ErrorReason) => new AppError("bad_request", message, undefined, reason);
export const unauthorized = (message = "missing or invalid token", reason?: ErrorReason) => new AppError("unauthorized", message, undefined, reason);
export const forbidden = (message: string) => new AppError("forbidden", message);
export const notFound = (what: string) => new AppError("not_found", `${what} not found`);
export const conflict = (message: string, reason?: ErrorReason) => new AppError("conflict", message, undefined, reason);
export const rateLimited = (retryAfter: number) =>
  new AppError("rate_limited", `too many requests, retry after ${retryAfter} s`, retryAfter);
export const unavailable = (message: string) => new AppError("unavailable", message);

/** Why: a restarted PostgreSQL or NATS is usually back within a couple of seconds. */
export const OUTAGE_RETRY_AFTER_SECONDS = 2;

/** PostgreSQL SQLSTATE classes meaning "the server is not there right now", not "your query is wrong". */
const PG_OUTAGE_STATES = /^(08|57P0[1-3]|53300)/;
/** postgres.js and NATS client codes for a connection that is gone, refused or timed out. */
const CLIENT_OUTAGE_CODES = new Set([
  "CONNECTION_CLOSED", "CONNECTION_ENDED", "CONNECTION_DESTROYED", "CONNECT_TIMEOUT", "ECONNREFUSED", "ECONNRESET",
  "EPIPE", "ETIMEDOUT", "TIMEOUT", "DATABASE_TIMEOUT", "DISCONNECT", "CONNECTION_DRAINING", "CONNECTION_REFUSED", "503",
]);

/**
 * A failure of PostgreSQL or NATS being away (restart, outage), as opposed to a bug: the
 * request may succeed if repeated, so it is answered 503 with a retry hint, never 500.
 */
export function isDependencyOutage(err: unknown): boolean {
  for (let e = err as { code?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++) {
    if (e instanceof AppError) return e.code === "unavailable";
    const code = typeof e.code === "string" ? e.code : undefined;
    if (code && (CLIENT_OUTAGE_CODES.has(code) || PG_OUTAGE_STATES.test(code))) return true;
  }
  return false;
}

/** Turns an outage into the 503 AppError; anything else is returned as it was. */
export function asOutage(err: unknown): unknown {
  if (err instanceof AppError || !isDependencyOutage(err)) return err;
  return new AppError("unavailable", "a backing service is briefly unavailable, retry shortly", OUTAGE_RETRY_AFTER_SECONDS);
}

/**
 * SQLSTATE classes a query fails with when a value from the request is bad, not the code:
 * 22 (data exception: out-of-range number, untranslatable character, invalid text) and
 * 23 (integrity constraint). Validation should have caught these first; this is the net.
 */
const PG_BAD_INPUT_STATES = /^(22|23)[0-9A-Z]{3}$/;
/** SQLSTATE of a unique index refusing a row. */
export const PG_UNIQUE_VIOLATION = "23505";

/** Turns a database refusal of bad input into 400 (409 for a duplicate); anything else is returned as it was. */
export function asBadInput(err: unknown): unknown {
  if (err instanceof AppError) return err;
  const code = (err as { code?: unknown } | undefined)?.code;
  if (typeof code !== "string" || !PG_BAD_INPUT_STATES.test(code)) return err;
  if (code === PG_UNIQUE_VIOLATION) return conflict("the request conflicts with an existing record");
  return badRequest(`a value in the request cannot be stored (${code})`);
}
