// One request-signing scheme both ways between us and a channel's own server: outgoing
// callbacks are signed with it, and a server-to-server channel can require it of what it
// posts to us. No I/O; delivery signs with it and intake (domain/visitor.ts) checks with it.
import { createHmac, timingSafeEqual } from "node:crypto";

export const SIGNATURE_HEADER = "X-Signature";
export const TIMESTAMP_HEADER = "X-Signature-Timestamp";

/** Why: a captured signed request replays only within this window; clocks of servers agree far closer. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

/** `sha256=<hex HMAC-SHA256(secret, "<timestamp>.<body>")>`, the value of X-Signature. */
export function signature(secret: string, timestamp: number, body: string): string {
  return `sha256=${createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex")}`;
}

export type SignatureCheck = "valid" | "missing" | "stale" | "wrong";

/** Checks X-Signature / X-Signature-Timestamp over the raw body, in constant time. */
export function checkSignature(
  secret: string, header: string | null | undefined, timestampHeader: string | null | undefined, body: string, nowMs = Date.now(),
): SignatureCheck {
  if (!header || !timestampHeader) return "missing";
  if (!/^\d{1,12}$/.test(timestampHeader.trim())) return "stale";
  const timestamp = Number(timestampHeader.trim());
  if (Math.abs(nowMs / 1000 - timestamp) > SIGNATURE_TOLERANCE_SECONDS) return "stale";
  const expected = Buffer.from(signature(secret, timestamp, body));
  const given = Buffer.from(header.trim());
  return given.length === expected.length && timingSafeEqual(given, expected) ? "valid" : "wrong";
}

/** Event webhooks' X-Botinbox-Signature: `t=<unix>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`. */
export function eventSignature(secret: string, timestamp: number, body: string): string {
  return `t=${timestamp},v1=${createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex")}`;
}
