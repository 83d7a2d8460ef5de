import type { Queryable } from "./driver.ts";

export interface DbUser {
  id: string;
  email: string;
  password_hash: string;
  created_at: Date;
  /** Tokens issued before it are refused (auth/plugin.ts). */
  password_changed_at: Date | null;
}

const USER_COLUMNS = "id, email, password_hash, created_at, password_changed_at";

/** Returns undefined when the email is taken (any case). */
export async function insertUser(db: Queryable, email: string, passwordHash: string): Promise<DbUser | undefined> {
  const rows = await db.query<DbUser>(
    `insert into users (email, password_hash) values ($1, $2)
     on conflict ((lower(email))) do nothing
     returning ${USER_COLUMNS}`,
    [email, passwordHash],
  );
  return rows[0];
}

export async function findUserByEmail(db: Queryable, email: string): Promise<DbUser | undefined> {
  const rows = await db.query<DbUser>(
    `select ${USER_COLUMNS} from users where lower(email) = lower($1)`,
    [email],
  );
  return rows[0];
}

export async function findUserById(db: Queryable, id: string): Promise<DbUser | undefined> {
  const rows = await db.query<DbUser>(`select ${USER_COLUMNS} from users where id = $1`, [id]);
  return rows[0];
}

/** `changedAt` comes from the process that signs tokens, so its next token is never older than it. */
export async function updatePassword(db: Queryable, id: string, passwordHash: string, changedAt: Date): Promise<void> {
  await db.query(`update users set password_hash = $2, password_changed_at = $3 where id = $1`, [id, passwordHash, changedAt]);
}
