import { feature } from "./feature.ts";
import { Elysia, ValidationError } from "elysia";
import { AppError, asBadInput, asOutage, ERROR_STATUS } from "../core/errors.ts";
import type { Logger } from "../logger.ts";
import { noteErrorResponse } from "./access-log.ts";
import { fromAppError, telegramErrorResponse } from "../telegram/errors.ts";

/** Keep a validation message readable when a value is huge or deeply nested. */
const MAX_ERROR_DETAIL_LENGTH = 200;

function fieldName(path: string | undefined): string {
  const name = (path ?? "").replace(/^\//, "").replace(/\//g, ".");
  return name || "body";
}

/** Turns Elysia's TypeBox error into one sentence naming the first offending field. */
function describeValidation(error: ValidationError): string {
  const first = error.all[0] as { path?: string; message?: string; summary?: string } | undefined;
  const where = error.type === "body" ? "" : `${error.type} `;
  if (!first) return `invalid ${where}request`;
  const field = fieldName(first.path);
  let reason = first.summary || first.message || "invalid value";
  if (reason.length > MAX_ERROR_DETAIL_LENGTH) reason = `${reason.slice(0, MAX_ERROR_DETAIL_LENGTH)}…`;
  if (first.message === "Expected required property") reason = "is required";
  return `${where}${field}: ${reason}`;
}

/** The Telegram-compatible facade's paths: /bot<token>/<method>. */
const TELEGRAM_PATH = /^\/bot\d+:/;

function envelope(status: number, error: string, retryAfter?: number): Response {
  const body: Record<string, unknown> = { ok: false, error, error_code: status };
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (retryAfter !== undefined) {
    body.retry_after = retryAfter;
    headers["retry-after"] = String(retryAfter);
  }
  return new Response(JSON.stringify(body), { status, headers });
}

/** The facade's path holds the bot token: it never reaches a log line. */
const loggedPath = (request: Request) => new URL(request.url).pathname.replace(/^\/bot[^/]*/, "/bot:token");

/** The one place where any error becomes an HTTP response. */
export const errorHandler = (logger: Logger) =>
  feature({ name: "error-handler" }).onError({ as: "global" }, (ctx) => noteErrorResponse(ctx.request, errorResponse(logger, ctx), ctx.error));

function errorResponse(logger: Logger, { code, error, request }: { code: string | number; error: any; request: Request }): Response {
  {
    // PostgreSQL or NATS away is the client's cue to retry (503), not a bug (500); a value
    // the database refuses is the client's mistake (400), whichever check let it through.
    const known = asBadInput(asOutage(error));
    if (known instanceof AppError) {
      // Errors raised before the facade's handler runs (the body limit) still speak Telegram there.
      if (TELEGRAM_PATH.test(new URL(request.url).pathname)) return telegramErrorResponse(fromAppError(known));
      return envelope(known.status, known.message, known.retryAfter);
    }
    // Elysia wraps what a parser throws; our own parser's AppError (413, 400) keeps its meaning.
    if (code === "PARSE" && error.cause instanceof AppError) return envelope(error.cause.status, error.cause.message);
    switch (code) {
      case "VALIDATION":
        return envelope(400, describeValidation(error as ValidationError));
      case "PARSE":
        return envelope(400, "malformed request body: expected valid JSON");
      case "NOT_FOUND":
        return envelope(404, `no route for ${request.method} ${new URL(request.url).pathname}`);
      case "INVALID_COOKIE_SIGNATURE":
        return envelope(400, "invalid cookie");
    }
    const status = (error as { status?: number })?.status;
    if (typeof status === "number" && status >= 400 && status < 500) {
      return envelope(status, (error as Error).message || "bad request");
    }
    // A client that went away mid-body is routine (and a flood of them must not flood the error log).
    if (request.signal?.aborted || (error as { name?: unknown })?.name === "AbortError") {
      logger.debug({ method: request.method, path: loggedPath(request) }, "client closed the request");
      return envelope(400, "the client closed the request before sending its body");
    }
    logger.error({ err: error, method: request.method, path: loggedPath(request) }, "unhandled error");
    return envelope(500, "internal error");
  }
}

export { ERROR_STATUS };
