// Button presses (callback queries): kept so answerCallbackQuery finds the chat it answers.
import type { Queryable } from "./driver.ts";

export interface DbCallbackQuery {
  id: string;
  bot_id: string;
  conversation_id: string;
  message_id: number;
  data: string;
  created_at: Date;
  answered_at: Date | null;
}

export async function insertCallbackQuery(
  db: Queryable, q: { id: string; botId: string; conversationId: string; messageId: number; data: string },
): Promise<void> {
  await db.query(
    `insert into callback_queries (id, bot_id, conversation_id, message_id, data) values ($1, $2, $3, $4, $5)`,
    [q.id, q.botId, q.conversationId, q.messageId, q.data],
  );
}

/** Presses past the answer window can no longer be answered; the inbox keeps its own record of them. */
export async function pruneCallbackQueries(db: Queryable, botId: string, maxAgeSeconds: number): Promise<void> {
  await db.query(`delete from callback_queries where bot_id = $1 and created_at < now() - make_interval(secs => $2)`, [botId, maxAgeSeconds]);
}

/** Marks the bot's press answered; undefined when unknown, another bot's, already answered or older than maxAgeSeconds. */
export async function answerCallbackQueryRow(db: Queryable, botId: string, id: string, maxAgeSeconds: number): Promise<DbCallbackQuery | undefined> {
  const rows = await db.query<DbCallbackQuery>(
    `update callback_queries set answered_at = now()
     where id = $1 and bot_id = $2 and answered_at is null and created_at > now() - make_interval(secs => $3)
     returning id, bot_id, conversation_id, message_id, data, created_at, answered_at`,
    [id, botId, maxAgeSeconds],
  );
  return rows[0];
}
