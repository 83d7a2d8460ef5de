// What a public writer (no token: the widget, a site, a channel's server) may and may not
// decide. Chat ids the server derives live in a namespace it cannot name, metadata the
// server sets is refused from it, its clock is believed only within a skew, and a channel
// can insist that its server signs what it posts (HMAC with the channel's secret).
import { AppError, badRequest } from "../core/errors.ts";
import { isSignable } from "../core/records.ts";
import { checkSignature } from "../delivery/signature.ts";
import type { BotDirectory } from "./directory.ts";

/** Chat ids the server derives (form submissions) begin with this; no public writer may name one. */
export const SERVER_CHAT_PREFIX = "form:";

/**
 * Metadata keys only the server writes: a press (callback_query), a form submission (form),
 * an e-mail's headers (email) and what this module keeps (client_timestamp). From a public
 * writer they would pass as a button press or a form to the inbox and the bot.
 */
export const RESERVED_METADATA_KEYS: readonly string[] = ["callback_query", "form", "email", "client_timestamp"];

/**
 * Why: phones and servers drift by seconds to a few minutes; a message dated further ahead
 * would sit at the top of the inbox until then. Older times are kept (offline queues, imports):
 * they cannot pin anything.
 */
export const MAX_CLIENT_CLOCK_AHEAD_MS = 5 * 60_000;

/** Timestamps above this are milliseconds (10^12 ms is 2001; 10^12 s is year 33658). */
const MILLISECOND_THRESHOLD = 1e12;


/** The raw request a signature is checked over. */
export interface SignedRequest {
  signature: string | null;
  timestamp: string | null;
  body: string;
}

export function refuseServerChatId(chatId: string): void {
  if (chatId.startsWith(SERVER_CHAT_PREFIX)) {
    throw badRequest(`chat_id must not begin with "${SERVER_CHAT_PREFIX}": those chats are created by the server`, "reserved_chat_id");
  }
}

export function refuseReservedMetadata(metadata: Record<string, unknown>): void {
  const reserved = RESERVED_METADATA_KEYS.find((key) => Object.hasOwn(metadata, key));
  if (reserved) throw badRequest(`metadata.${reserved} is set by the server only`, "reserved_metadata");
}

/** The message's time: the client's when within the skew, else now with the client's kept in metadata. */
export function visitorTime(timestamp: number | undefined, now = Date.now()): { createdAt: Date; clientTimestamp?: number } {
  if (timestamp === undefined) return { createdAt: new Date(now) };
  const ms = timestamp > MILLISECOND_THRESHOLD ? timestamp : timestamp * 1000;
  if (ms - now > MAX_CLIENT_CLOCK_AHEAD_MS) return { createdAt: new Date(now), clientTimestamp: timestamp };
  return { createdAt: new Date(ms) };
}

/**
 * A channel with `require_signature` accepts only requests signed with its `secret`
 * (401 otherwise). True when the request carries a valid signature, whether required or not:
 * the sender is then the channel's own server and is believed about its users.
 */
export async function checkChannelSignature(
  deps: { bots: BotDirectory }, botId: string, channel: string, signed: SignedRequest | undefined, now = Date.now(),
): Promise<boolean> {
  if (!isSignable(channel)) return false;
  const config = (await deps.bots.channel(botId, channel))?.config ?? {};
  const secret = typeof config.secret === "string" && config.secret ? config.secret : undefined;
  const outcome = secret && signed ? checkSignature(secret, signed.signature, signed.timestamp, signed.body, now) : "missing";
  if (outcome === "valid") return true;
  if (config.require_signature !== true) return false;
  const why = !secret ? "it has no secret set" : outcome === "stale" ? "X-Signature-Timestamp is missing or too far from now" : "X-Signature is missing or wrong";
  throw new AppError("unauthorized", `channel ${channel} requires signed requests: ${why}`, undefined, "signature_required");
}
