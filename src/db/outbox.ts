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

/** Once update N is durable in the log, so is every update of the bot below it. */
export async function deleteOutboxUpTo(db: Queryable, botId: string, uptoUpdateId: number): Promise<void> {
  await db.query(`delete from outbox where bot_id = $1 and update_id <= $2`, [botId, uptoUpdateId]);
}

export interface DbStaleOutboxBot {
  bot_id: string;
  /** The bot's highest stale update_id: publishing up to it publishes everything below first. */
  upto: number;
}

/** Bots with rows older than `olderThan`: left by a crash between commit and publish, or an outage. */
export async function listStaleOutboxBots(db: Queryable, olderThan: Date, limit: number): Promise<DbStaleOutboxBot[]> {
  return db.query<DbStaleOutboxBot>(
    `select bot_id, max(update_id) as upto from outbox where created_at < $1
     group by bot_id order by min(created_at) limit $2`,
    [olderThan, limit],
  );
}

/** A bot's committed, not yet published updates up to `uptoUpdateId`, lowest first. */
export async function listBotOutboxUpTo(db: Queryable, botId: string, uptoUpdateId: number, limit: number): Promise<DbOutboxRow[]> {
  return db.query<DbOutboxRow>(
    `select bot_id, update_id, payload, created_at from outbox where bot_id = $1 and update_id <= $2 order by update_id limit $3`,
    [botId, uptoUpdateId, limit],
  );
}
