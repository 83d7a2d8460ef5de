import type { Queryable } from "./driver.ts";
import { json } from "./driver.ts";

export interface DbOutboxRow {
  bot_id: string;
  update_id: number;
  payload: Record<string, unknown>;
  created_at: Date;
}

export async function insertOutbox(db: Queryable, botId: string, updateId: number, payload: Record<string, unknown>): Promise<void> {
  await db.query(`insert into outbox (bot_id, update_id, payload) values ($1, $2, $3::text::jsonb)`, [botId, updateId, json(payload)]);
}

export async function deleteOutbox(db: Queryable, botId: string, updateId: number): Promise<void> {
  await db.query(`delete from outbox where bot_id = $1 and update_id = $2`, [botId, updateId]);
}

/** Rows older than `olderThan` were left by a crash between commit and publish. */
export async function listStaleOutbox(db: Queryable, olderThan: Date, limit: number): Promise<DbOutboxRow[]> {
  return db.query<DbOutboxRow>(
    `select bot_id, update_id, payload, created_at from outbox where created_at < $1 order by created_at, update_id limit $2`,
    [olderThan, limit],
  );
}

/** A bot's committed, not yet published updates up to `uptoUpdateId`, oldest first. */
export async function listBotOutboxUpTo(db: Queryable, botId: string, uptoUpdateId: number): Promise<DbOutboxRow[]> {
  return db.query<DbOutboxRow>(
    `select bot_id, update_id, payload, created_at from outbox where bot_id = $1 and update_id <= $2 order by update_id`,
    [botId, uptoUpdateId],
  );
}
