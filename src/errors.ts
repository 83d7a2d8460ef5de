// The one error catalogue: domain code → HTTP status. Services throw AppError with a code;
// the HTTP front's single onError turns it into the envelope {ok:false, error, error_code}.

export const ERROR_STATUS = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  rate_limited: 429,
  unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** seconds, only for rate_limited */
    readonly retryAfter?: number,
  ) {
    super(message);
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }
}

export const badRequest = (message: string) => new AppError("bad_request", message);
export const unauthorized = (message = "missing or invalid token") => new AppError("unauthorized", message);
export const forbidden = (message: string) => new AppError("forbidden", message);
export const notFound = (what: string) => new AppError("not_found", `${what} not found`);
export const conflict = (message: string) => new AppError("conflict", message);
export const rateLimited = (retryAfter: number) =>
  new AppError("rate_limited", `too many requests, retry after ${retryAfter} s`, retryAfter);
export const unavailable = (message: string) => new AppError("unavailable", message);
