// Verified widget visitors. A site that knows who its user is signs the user's id with the
// bot's identity secret on its own server (hex HMAC-SHA256) and hands id and hash to the
// widget. Every public call that names a chat may carry them: a valid pair is that user's one
// conversation, on any device (its chat id is derived from the user id, in a namespace no
// public writer can name), and a contact marked verified. A wrong hash is refused, and a chat
// of a verified user is never reached without one.
import { createHmac, timingSafeEqual } from "node:crypto";
import { badRequest, unauthorized } from "../core/errors.ts";
import { VERIFIED_CHAT_PREFIX, VERIFIED_CONTACT_PREFIX } from "../core/records.ts";
import type { Db } from "../db/driver.ts";
import { findIdentitySecret, insertIdentitySecret, replaceIdentitySecret, type DbIdentitySecret } from "../db/identity.ts";
import { randomKey, type SecretBox } from "../secrets.ts";
import { requireMember } from "./members.ts";

export { VERIFIED_CHAT_PREFIX, VERIFIED_CONTACT_PREFIX };

/** Why: 256 random bits, as much as the HMAC-SHA256 key can use. */
const IDENTITY_SECRET_BYTES = 32;
/** Why: the derived chat id (prefix + user id) must still fit the 256-character chat id every route accepts. */
export const MAX_VERIFIED_USER_ID_LENGTH = 256 - VERIFIED_CHAT_PREFIX.length;
/** A SHA-256 HMAC in hex. */
const HASH_PATTERN = /^[0-9a-f]{64}$/i;

export interface IdentityDeps {
  db: Db;
  secretBox: SecretBox;
}

/** What an owner sees: the secret itself, and since when it holds. */
export interface IdentitySecret {
  identity_secret: string;
  rotated_at: string;
}

/** What a public call claims about its visitor. */
export interface IdentityClaim {
  chat_id?: string;
  user_id?: string;
  user_hash?: string;
}

/** The chat a public call may use, and the verified user it belongs to (undefined: anonymous). */
export interface VisitorChat {
  chatId: string | undefined;
  userId?: string;
}

/** hex HMAC-SHA256(secret, user id): what the site's server computes. */
export const userHash = (secret: string, userId: string): string => createHmac("sha256", secret).update(userId).digest("hex");

const shown = (row: DbIdentitySecret, box: SecretBox): IdentitySecret => ({
  identity_secret: box.open(row.secret_encrypted),
  rotated_at: row.rotated_at.toISOString(),
});

/** The bot's identity secret, made on first read; owner only (403 for other members). */
export async function readIdentitySecret(deps: IdentityDeps, userId: string, botId: string): Promise<IdentitySecret> {
  const bot = await requireMember(deps.db, userId, botId, "owner");
  const row = (await findIdentitySecret(deps.db, bot.id)) ?? (await insertIdentitySecret(deps.db, bot.id, deps.secretBox.seal(randomKey(IDENTITY_SECRET_BYTES))));
  return shown(row, deps.secretBox);
}

/** A new secret: every hash signed with the old one is refused from now on. Owner only. */
export async function rotateIdentitySecret(deps: IdentityDeps, userId: string, botId: string): Promise<IdentitySecret> {
  const bot = await requireMember(deps.db, userId, botId, "owner");
  return shown(await replaceIdentitySecret(deps.db, bot.id, deps.secretBox.seal(randomKey(IDENTITY_SECRET_BYTES))), deps.secretBox);
}

/** Constant-time: the time an answer takes tells nothing about how much of a forged hash was right. */
function sameHash(expected: string, given: string): boolean {
  const a = Buffer.from(expected, "hex");
  const b = Buffer.from(given.toLowerCase(), "hex");
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * The chat a public call may use. With user_hash: the user's own chat, once the hash is right
 * (401 otherwise); a chat_id, if given, must be that chat. Without: any chat but a verified
 * user's (401), which only its hash opens.
 */
export async function visitorChat(deps: IdentityDeps, botId: string, claim: IdentityClaim): Promise<VisitorChat> {
  if (claim.user_hash === undefined) {
    if (claim.chat_id?.startsWith(VERIFIED_CHAT_PREFIX)) {
      throw unauthorized(`chat ${claim.chat_id} belongs to a verified user: send its user_id and user_hash`, "identity_required");
    }
    return { chatId: claim.chat_id };
  }
  const userId = claim.user_id;
  if (!userId) throw badRequest("user_hash needs the user_id it signs");
  if (userId.length > MAX_VERIFIED_USER_ID_LENGTH) throw badRequest(`user_id: at most ${MAX_VERIFIED_USER_ID_LENGTH} characters for a verified user`);
  const row = HASH_PATTERN.test(claim.user_hash) ? await findIdentitySecret(deps.db, botId) : undefined;
  if (!row || !sameHash(userHash(deps.secretBox.open(row.secret_encrypted), userId), claim.user_hash)) {
    throw unauthorized(
      "user_hash does not match user_id: compute it on your server as hex HMAC-SHA256(the bot's identity secret, user_id)",
      "identity_invalid",
    );
  }
  const chatId = VERIFIED_CHAT_PREFIX + userId;
  if (claim.chat_id !== undefined && claim.chat_id !== chatId) throw badRequest(`a verified user's chat_id is ${chatId} (or leave chat_id out)`);
  return { chatId, userId };
}

/** The contact key of a verified user: apart from every key an unverified claim can produce. */
export const verifiedContactKey = (userId: string) => VERIFIED_CONTACT_PREFIX + userId;

/** The widget's check before it opens a verified user's chat: the chat to use, or 401. */
export async function identify(deps: IdentityDeps, botId: string, claim: IdentityClaim): Promise<{ chat_id: string; user_id: string; verified: true }> {
  if (claim.user_hash === undefined) throw badRequest("user_hash is required");
  const { chatId, userId } = await visitorChat(deps, botId, claim);
  return { chat_id: chatId!, user_id: userId!, verified: true };
}
