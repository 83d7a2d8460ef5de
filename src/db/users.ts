import type { Queryable } from "./driver.ts";

export interface DbUser {
  id: string;
  email: string;
  password_hash: string;
  created_at: Date;
}

/** Returns undefined when the email is taken (any case). */
export async function insertUser(db: Queryable, email: string, passwordHash: string): Promise<DbUser | undefined> {
  const rows = await db.query<DbUser>(
    `insert into users (email, password_hash) values ($1, $2)
     on conflict ((lower(email))) do nothing
     returning id, email, password_hash, created_at`,
    [email, passwordHash],
  );
  return rows[0];
}

export async function findUserByEmail(db: Queryable, email: string): Promise<DbUser | undefined> {
  const rows = await db.query<DbUser>(
    `select id, email, password_hash, created_at from users where lower(email) = lower($1)`,
    [email],
  );
  return rows[0];
}

export async function findUserById(db: Queryable, id: string): Promise<DbUser | undefined> {
  const rows = await db.query<DbUser>(`select id, email, password_hash, created_at from users where id = $1`, [id]);
  return rows[0];
}
