// Personal API tokens: long-lived, scoped, revocable credentials for a user's scripts and
// integrations. The token is shown once; only its SHA-256 is kept (it carries 256 random
// bits, so a plain hash is enough). Every request looks the hash up, so a revocation or an
// expiry applies at once in every process.
import { createHash, randomBytes } from "node:crypto";
import { badRequest, conflict, forbidden, notFound, unauthorized } from "../core/errors.ts";
import {
  API_TOKEN_PREFIX, API_TOKEN_SCOPES, API_TOKEN_TOUCH_INTERVAL_MS, MAX_API_TOKENS_PER_USER, scopeOfRequest, type ApiTokenScope,
} from "../core/integrations.ts";
import type { Db } from "../db/driver.ts";
import {
  countLiveApiTokens, findApiTokenByHash, findApiTokenById, insertApiToken, listApiTokens, revokeApiToken, touchApiToken, type DbApiToken,
} from "../db/api_tokens.ts";
import { findUserById } from "../db/users.ts";
import { toUser, type User } from "./accounts.ts";

export interface ApiToken {
  id: string;
  name: string;
  scopes: ApiTokenScope[];
  expires_at: string | null;
  last_used_at: string | null;
  created_at: string;
}

/** Why: a name is a label in a list, like a bot's name. */
export const MAX_TOKEN_NAME_LENGTH = 100;

const hashOf = (token: string) => createHash("sha256").update(token).digest("hex");
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const toApiToken = (row: DbApiToken): ApiToken => ({
  id: row.id,
  name: row.name,
  scopes: row.scopes as ApiTokenScope[],
  expires_at: row.expires_at?.toISOString() ?? null,
  last_used_at: row.last_used_at?.toISOString() ?? null,
  created_at: row.created_at.toISOString(),
});

export const isApiToken = (bearer: string) => bearer.startsWith(API_TOKEN_PREFIX);

export async function createApiToken(
  db: Db, userId: string, input: { name: string; scopes: string[]; expires_at?: string }, now = Date.now(),
): Promise<ApiToken & { token: string }> {
  const name = input.name.trim();
  if (!name || name.length > MAX_TOKEN_NAME_LENGTH) throw badRequest(`name: 1..${MAX_TOKEN_NAME_LENGTH} characters`);
  const scopes = [...new Set(input.scopes)];
  if (scopes.length === 0) throw badRequest("scopes: name at least one scope");
  const unknown = scopes.filter((s) => !(API_TOKEN_SCOPES as readonly string[]).includes(s));
  if (unknown.length) throw badRequest(`scopes: unknown ${unknown.join(", ")}; known: ${API_TOKEN_SCOPES.join(", ")}`);
  let expiresAt: Date | null = null;
  if (input.expires_at !== undefined) {
    expiresAt = new Date(input.expires_at);
    if (Number.isNaN(expiresAt.getTime())) throw badRequest("expires_at: an ISO 8601 time");
    if (expiresAt.getTime() <= now) throw badRequest("expires_at: must be in the future");
  }
  if ((await countLiveApiTokens(db, userId)) >= MAX_API_TOKENS_PER_USER) {
    throw conflict(`a user has at most ${MAX_API_TOKENS_PER_USER} API tokens; revoke one first`);
  }
  const token = `${API_TOKEN_PREFIX}${randomBytes(32).toString("base64url")}`;
  const row = await insertApiToken(db, userId, name, scopes, hashOf(token), expiresAt);
  return { ...toApiToken(row), token };
}

export async function listUserApiTokens(db: Db, userId: string): Promise<ApiToken[]> {
  return (await listApiTokens(db, userId)).map(toApiToken);
}

export async function revokeUserApiToken(db: Db, userId: string, id: string): Promise<true> {
  if (!UUID.test(id) || !(await revokeApiToken(db, userId, id))) throw notFound("API token");
  return true;
}

/** Why: bounds the memory of last-use writes; forgetting only costs one extra row update per token. */
const MAX_TOUCHED_REMEMBERED = 10_000;

/** Last-use writes this process made recently, per token: at most one per interval. */
const touched = new Map<string, number>();

/**
 * The user behind a personal API token, for a request of `method` to `path`: 401 for an
 * unknown, revoked or expired token, 403 when the request needs a scope it lacks.
 */
export async function userOfApiToken(
  db: Db, token: string, method: string, path: string, now = Date.now(),
): Promise<{ user: User; tokenId: string; expiresAt: Date | null }> {
  const row = await findApiTokenByHash(db, hashOf(token));
  if (!row || row.revoked_at) throw unauthorized("invalid or revoked API token", "session_revoked");
  if (row.expires_at && row.expires_at.getTime() <= now) throw unauthorized("the API token has expired", "session_revoked");
  const needed = scopeOfRequest(method, path);
  if (!needed) throw forbidden("API tokens cannot call this endpoint; sign in as the user");
  if (!row.scopes.includes(needed)) throw forbidden(`the API token lacks the ${needed} scope`);
  const user = await findUserById(db, row.user_id);
  if (!user) throw unauthorized("invalid or revoked API token", "session_revoked");
  const last = touched.get(row.id) ?? row.last_used_at?.getTime() ?? 0;
  if (now - last >= API_TOKEN_TOUCH_INTERVAL_MS) {
    if (touched.size >= MAX_TOUCHED_REMEMBERED) touched.clear();
    touched.set(row.id, now);
    await touchApiToken(db, row.id);
  }
  return { user: toUser(user), tokenId: row.id, expiresAt: row.expires_at };
}

/** Whether a token still works (streams opened with it re-check on a revocation notice). */
export async function apiTokenIsLive(db: Db, tokenId: string, now = Date.now()): Promise<boolean> {
  const row = await findApiTokenById(db, tokenId);
  return row !== undefined && !row.revoked_at && (!row.expires_at || row.expires_at.getTime() > now);
}
