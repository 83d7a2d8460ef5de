import type { Queryable } from "./driver.ts";
import { json } from "./driver.ts";

export interface BotCommand {
  command: string;
  description: string;
}

export async function getCommands(db: Queryable, botId: string): Promise<BotCommand[]> {
  const rows = await db.query<{ commands: BotCommand[] }>(`select commands from bot_commands where bot_id = $1`, [botId]);
  return rows[0]?.commands ?? [];
}

export async function setCommands(db: Queryable, botId: string, commands: BotCommand[]): Promise<void> {
  await db.query(
    `insert into bot_commands (bot_id, commands) values ($1, $2::text::jsonb)
     on conflict (bot_id) do update set commands = excluded.commands, updated_at = now()`,
    [botId, json(commands)],
  );
}
