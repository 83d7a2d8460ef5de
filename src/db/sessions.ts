import type { Queryable } from "./driver.ts";
import type { DbUser } from "./users.ts";

export interface DbUserSession extends DbUser {
  /** The token's id is on the revoked list (logged out). */
  revoked: boolean;
}

/** The user a token names and whether that token was logged out, in one round trip. */
export async function findUserSession(db: Queryable, userId: string, jti: string | null): Promise<DbUserSession | undefined> {
  const rows = await db.query<DbUserSession>(
    `select u.id, u.email, u.password_hash, u.created_at, u.password_changed_at,
            exists (select 1 from revoked_tokens r where r.jti = $2) as revoked
     from users u where u.id = $1`,
    [userId, jti],
  );
  return rows[0];
}

/** Revokes one token; expired entries are swept on the way (nothing else reads them). */
export async function revokeToken(db: Queryable, userId: string, jti: string, expiresAt: Date): Promise<void> {
  await db.query(`delete from revoked_tokens where expires_at < now()`);
  await db.query(
    `insert into revoked_tokens (jti, user_id, expires_at) values ($1, $2, $3) on conflict (jti) do nothing`,
    [jti, userId, expiresAt],
  );
}
