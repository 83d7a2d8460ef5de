// Telegram's error envelope: {ok:false, error_code, description, parameters?} with the HTTP
// status equal to error_code, and descriptions that start the way Telegram's do, because
// client libraries and bots match on them ("Bad Request: message is not modified", …).
import { AppError } from "../core/errors.ts";

export interface ResponseParameters {
  retry_after?: number;
}

export class TelegramError extends Error {
  constructor(
    readonly errorCode: number,
    readonly description: string,
    readonly parameters?: ResponseParameters,
  ) {
    super(description);
  }
}

export const tgBadRequest = (reason: string) => new TelegramError(400, `Bad Request: ${reason}`);
const tgUnauthorized = () => new TelegramError(401, "Unauthorized");
export const tgMethodNotFound = () => new TelegramError(404, "Not Found: method not found");

/** Telegram's own wording for the conflicts a long poll can meet. */
export const TG_TERMINATED_BY_OTHER_POLL =
  "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running";
export const TG_WEBHOOK_ACTIVE = "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first";

/** A native AppError in Telegram's words; methods translate the ones they expect more precisely first. */
export function fromAppError(error: AppError): TelegramError {
  switch (error.code) {
    case "bad_request":
      return tgBadRequest(error.reason === "wrong_file_id" ? "wrong file identifier/HTTP URL specified" : error.message);
    case "unsupported_media_type":
      return tgBadRequest(error.message);
    case "unauthorized":
      return tgUnauthorized();
    case "forbidden":
      return new TelegramError(403, `Forbidden: ${error.message}`);
    case "not_found":
      return new TelegramError(404, `Not Found: ${error.message}`);
    case "conflict":
      return new TelegramError(409, `Conflict: ${error.message}`);
    case "payload_too_large":
      return new TelegramError(413, "Request Entity Too Large");
    case "rate_limited": {
      const retryAfter = error.retryAfter ?? 1;
      return new TelegramError(429, `Too Many Requests: retry after ${retryAfter}`, { retry_after: retryAfter });
    }
    case "unavailable":
      return new TelegramError(503, `Service Unavailable: ${error.message}`, error.retryAfter ? { retry_after: error.retryAfter } : undefined);
  }
}

export function telegramErrorResponse(error: TelegramError): Response {
  const body: Record<string, unknown> = { ok: false, error_code: error.errorCode, description: error.description };
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (error.parameters) {
    body.parameters = error.parameters;
    if (error.parameters.retry_after !== undefined) headers["retry-after"] = String(error.parameters.retry_after);
  }
  return new Response(JSON.stringify(body), { status: error.errorCode, headers });
}

export const INTERNAL_ERROR = new TelegramError(500, "Internal Server Error");
