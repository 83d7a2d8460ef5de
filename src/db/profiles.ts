// The bot's Telegram profile settings (setMyName, setMyDescription, setMyShortDescription,
// setChatMenuButton), stored as sent; null: never set.
import { json, type Queryable } from "./driver.ts";

export interface DbBotProfile {
  name: string | null;
  description: string | null;
  short_description: string | null;
  menu_button: Record<string, unknown> | null;
}

export type ProfileField = keyof DbBotProfile;

export async function findBotProfile(db: Queryable, botId: string): Promise<DbBotProfile | undefined> {
  const rows = await db.query<DbBotProfile>(
    `select name, description, short_description, menu_button from bot_profiles where bot_id = $1`,
    [botId],
  );
  return rows[0];
}

const COLUMNS: Record<ProfileField, string> = {
  name: "name", description: "description", short_description: "short_description", menu_button: "menu_button",
};

export async function setBotProfileField(db: Queryable, botId: string, field: ProfileField, value: string | Record<string, unknown> | null): Promise<void> {
  const column = COLUMNS[field];
  const cast = field === "menu_button" ? "::text::jsonb" : "";
  const stored = field === "menu_button" && value !== null ? json(value) : value;
  await db.query(
    `insert into bot_profiles (bot_id, ${column}) values ($1, $2${cast})
     on conflict (bot_id) do update set ${column} = excluded.${column}, updated_at = now()`,
    [botId, stored],
  );
}
