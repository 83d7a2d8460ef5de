import type { Queryable } from "./driver.ts";

export interface DbIdentitySecret {
  bot_id: string;
  secret_encrypted: string;
  rotated_at: Date;
}

export async function findIdentitySecret(db: Queryable, botId: string): Promise<DbIdentitySecret | undefined> {
  const rows = await db.query<DbIdentitySecret>(`select bot_id, secret_encrypted, rotated_at from bot_identity_secrets where bot_id = $1`, [botId]);
  return rows[0];
}

/** The bot's first secret; when two readers race, the row that won is returned to both. */
export async function insertIdentitySecret(db: Queryable, botId: string, sealed: string): Promise<DbIdentitySecret> {
  await db.query(`insert into bot_identity_secrets (bot_id, secret_encrypted) values ($1, $2) on conflict (bot_id) do nothing`, [botId, sealed]);
  return (await findIdentitySecret(db, botId))!;
}

export async function replaceIdentitySecret(db: Queryable, botId: string, sealed: string): Promise<DbIdentitySecret> {
  const rows = await db.query<DbIdentitySecret>(
    `insert into bot_identity_secrets (bot_id, secret_encrypted) values ($1, $2)
     on conflict (bot_id) do update set secret_encrypted = excluded.secret_encrypted, rotated_at = now()
     returning bot_id, secret_encrypted, rotated_at`,
    [botId, sealed],
  );
  return rows[0]!;
}
