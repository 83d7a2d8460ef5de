// Canned replies per bot (sql/122_…).
import type { Queryable } from "./driver.ts";

export interface DbCannedReply {
  id: string;
  bot_id: string;
  shortcut: string;
  text: string;
  created_at: Date;
}

export async function listCannedReplies(db: Queryable, botId: string): Promise<DbCannedReply[]> {
  return db.query<DbCannedReply>(
    `select id, bot_id, shortcut, text, created_at from canned_replies where bot_id = $1 order by lower(shortcut), id`,
    [botId],
  );
}

export async function countCannedReplies(db: Queryable, botId: string): Promise<number> {
  const rows = await db.query<{ n: number | string }>(`select count(*) as n from canned_replies where bot_id = $1`, [botId]);
  return Number(rows[0]?.n ?? 0);
}

/** Undefined when the bot already has that shortcut (any case). */
export async function insertCannedReply(
  db: Queryable, botId: string, shortcut: string, text: string, createdBy: string,
): Promise<DbCannedReply | undefined> {
  const rows = await db.query<DbCannedReply>(
    `insert into canned_replies (bot_id, shortcut, text, created_by) values ($1, $2, $3, $4)
     on conflict (bot_id, lower(shortcut)) do nothing
     returning id, bot_id, shortcut, text, created_at`,
    [botId, shortcut, text, createdBy],
  );
  return rows[0];
}

export async function deleteCannedReply(db: Queryable, botId: string, id: string): Promise<boolean> {
  const rows = await db.query(`delete from canned_replies where bot_id = $1 and id = $2 returning 1`, [botId, id]);
  return rows.length > 0;
}
