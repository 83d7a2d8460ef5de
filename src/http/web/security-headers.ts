// Pages we serve as HTML are not to be framed by other sites (clickjacking an operator into
// replying or rotating a token) and run only our own scripts, so an injected string can
// never become script even if an escaping bug lets markup through.

/** The cabinet loads only same-origin script, style, data and the service worker. */
export const CABINET_CSP = [
  "default-src 'self'", "script-src 'self'", "style-src 'self'", "img-src 'self' data:", "connect-src 'self'",
  "worker-src 'self'", "object-src 'none'", "base-uri 'none'", "form-action 'self'", "frame-ancestors 'none'",
].join("; ");

/** Swagger UI's page starts itself with an inline script and inline styles; it still loads nothing from elsewhere. */
export const SWAGGER_CSP = [
  "default-src 'self'", "script-src 'self' 'unsafe-inline'", "style-src 'self' 'unsafe-inline'", "img-src 'self' data:",
  "connect-src 'self'", "object-src 'none'", "base-uri 'none'", "form-action 'self'", "frame-ancestors 'none'",
].join("; ");

export function pageHeaders(csp: string): Record<string, string> {
  return {
    "content-security-policy": csp,
    "x-frame-options": "DENY",
    "x-content-type-options": "nosniff",
    "referrer-policy": "same-origin",
  };
}
