// Working hours per bot and the once-per-12-hours away message (sql/200_…).
import { json, type Queryable } from "./driver.ts";
import { presenceSql } from "./presence.ts";

export type Weekly = Record<string, [string, string][]>;

export interface DbHours {
  bot_id: string;
  timezone: string;
  weekly: Weekly;
  holidays: string[];
  away_message: string;
  updated_at: Date;
}

/** Why: once per 12 hours (docs/design.md §13.3): a visitor who writes on is not answered by the same notice again and again. */
export const AWAY_MESSAGE_INTERVAL_HOURS = 12;

const parseJson = <T>(value: unknown): T => (typeof value === "string" ? JSON.parse(value) : value) as T;
const toHours = (row: DbHours): DbHours => ({ ...row, weekly: parseJson(row.weekly), holidays: parseJson(row.holidays) });

export async function findHours(db: Queryable, botId: string): Promise<DbHours | undefined> {
  const rows = await db.query<DbHours>(
    `select bot_id, timezone, weekly, holidays, away_message, updated_at from bot_hours where bot_id = $1`,
    [botId],
  );
  return rows[0] ? toHours(rows[0]) : undefined;
}

export async function upsertHours(
  db: Queryable, botId: string, hours: { timezone: string; weekly: Weekly; holidays: string[]; away_message: string },
): Promise<DbHours> {
  const rows = await db.query<DbHours>(
    `insert into bot_hours (bot_id, timezone, weekly, holidays, away_message) values ($1, $2, $3::text::jsonb, $4::text::jsonb, $5)
     on conflict (bot_id) do update set timezone = excluded.timezone, weekly = excluded.weekly, holidays = excluded.holidays,
       away_message = excluded.away_message, updated_at = now()
     returning bot_id, timezone, weekly, holidays, away_message, updated_at`,
    [botId, hours.timezone, json(hours.weekly), json(hours.holidays), hours.away_message],
  );
  return toHours(rows[0]!);
}

/**
 * Claims this conversation's away message: true for exactly one caller, and again only after
 * AWAY_MESSAGE_INTERVAL_HOURS (a conditional upsert: one decision whatever the process).
 */
export async function claimAwayMessage(db: Queryable, conversationId: string): Promise<boolean> {
  const rows = await db.query(
    `insert into conversation_away_sent (conversation_id, sent_at) values ($1, now())
     on conflict (conversation_id) do update set sent_at = now()
       where conversation_away_sent.sent_at <= now() - interval '${AWAY_MESSAGE_INTERVAL_HOURS} hours'
     returning 1`,
    [conversationId],
  );
  return rows.length > 0;
}

/** Whether any member of the bot is online now. */
export async function anyMemberOnline(db: Queryable, botId: string): Promise<boolean> {
  const rows = await db.query(
    `select 1 from bot_members m left join member_presence p on p.user_id = m.user_id
     where m.bot_id = $1 and ${presenceSql("m.user_id")} = 'online' limit 1`,
    [botId],
  );
  return rows.length > 0;
}
