// SQL for personal API tokens (sql/230_event_webhooks_api_tokens.sql). Only hashes are stored.
import type { Queryable } from "./driver.ts";

export interface DbApiToken {
  id: string;
  user_id: string;
  name: string;
  scopes: string[];
  expires_at: Date | null;
  last_used_at: Date | null;
  revoked_at: Date | null;
  created_at: Date;
}

const COLUMNS = `id, user_id, name, scopes, expires_at, last_used_at, revoked_at, created_at`;

export async function insertApiToken(
  db: Queryable, userId: string, name: string, scopes: readonly string[], tokenHash: string, expiresAt: Date | null,
): Promise<DbApiToken> {
  const rows = await db.query<DbApiToken>(
    `insert into api_tokens (user_id, name, scopes, token_hash, expires_at) values ($1, $2, $3::text::text[], $4, $5) returning ${COLUMNS}`,
    [userId, name, `{${scopes.join(",")}}`, tokenHash, expiresAt],
  );
  return rows[0]!;
}

/** The user's tokens that are not revoked, newest first. */
export async function listApiTokens(db: Queryable, userId: string): Promise<DbApiToken[]> {
  return db.query<DbApiToken>(`select ${COLUMNS} from api_tokens where user_id = $1 and revoked_at is null order by created_at desc`, [userId]);
}

export async function countLiveApiTokens(db: Queryable, userId: string): Promise<number> {
  const rows = await db.query<{ n: number }>(`select count(*)::int as n from api_tokens where user_id = $1 and revoked_at is null`, [userId]);
  return rows[0]!.n;
}

export async function revokeApiToken(db: Queryable, userId: string, id: string): Promise<boolean> {
  const rows = await db.query(`update api_tokens set revoked_at = now() where user_id = $1 and id = $2 and revoked_at is null returning id`, [userId, id]);
  return rows.length > 0;
}

/** Looked up on every request: revocation and expiry apply at once, in every process. */
export async function findApiTokenByHash(db: Queryable, tokenHash: string): Promise<DbApiToken | undefined> {
  const rows = await db.query<DbApiToken>(`select ${COLUMNS} from api_tokens where token_hash = $1`, [tokenHash]);
  return rows[0];
}

/** Written at most once per interval per token (the caller decides when). */
export async function touchApiToken(db: Queryable, id: string): Promise<void> {
  await db.query(`update api_tokens set last_used_at = now() where id = $1`, [id]);
}

export async function findApiTokenById(db: Queryable, id: string): Promise<DbApiToken | undefined> {
  const rows = await db.query<DbApiToken>(`select ${COLUMNS} from api_tokens where id = $1`, [id]);
  return rows[0];
}
