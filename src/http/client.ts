import type { Server } from "bun";

/**
 * The caller's address as the socket sees it. X-Forwarded-For is not trusted: anyone can
 * send it, and trusting it would let a client pick its own rate-limit bucket.
 */
export function clientIp(server: Server<unknown> | null, request: Request): string {
  return server?.requestIP(request)?.address ?? "local";
}
