// Visitors' satisfaction ratings: one per conversation (the primary key is the guard).
import type { Queryable } from "./driver.ts";

export interface DbRating {
  conversation_id: string;
  rating: number;
  comment: string | null;
  created_at: Date;
}

const RATING_COLUMNS = "r.conversation_id, r.rating, r.comment, r.created_at";

/** Undefined when the conversation was already rated. */
export async function insertRating(
  db: Queryable, botId: string, conversationId: string, rating: number, comment: string | null,
): Promise<DbRating | undefined> {
  const rows = await db.query<DbRating>(
    `insert into conversation_ratings as r (conversation_id, bot_id, rating, comment) values ($1, $2, $3, $4)
     on conflict (conversation_id) do nothing returning ${RATING_COLUMNS}`,
    [conversationId, botId, rating, comment],
  );
  return rows[0];
}

export async function findRating(db: Queryable, conversationId: string): Promise<DbRating | undefined> {
  const rows = await db.query<DbRating>(`select ${RATING_COLUMNS} from conversation_ratings r where r.conversation_id = $1`, [conversationId]);
  return rows[0];
}
