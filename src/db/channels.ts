import type { Queryable } from "./driver.ts";
import { json } from "./driver.ts";

export interface DbChannel {
  bot_id: string;
  channel_type: string;
  is_active: boolean;
  config: Record<string, unknown>;
  updated_at: Date;
}

export async function listChannels(db: Queryable, botId: string): Promise<DbChannel[]> {
  return db.query<DbChannel>(
    `select bot_id, channel_type, is_active, config, updated_at from channels where bot_id = $1`,
    [botId],
  );
}

export async function findChannel(db: Queryable, botId: string, channelType: string): Promise<DbChannel | undefined> {
  const rows = await db.query<DbChannel>(
    `select bot_id, channel_type, is_active, config, updated_at from channels where bot_id = $1 and channel_type = $2`,
    [botId, channelType],
  );
  return rows[0];
}

/**
 * Upsert; a null isActive or config keeps the stored value (or the default for a new row).
 * A config is merged key by key into the stored one (a key given as null is removed), in the
 * statement itself so two owners' edits of different keys both hold.
 */
export async function upsertChannel(
  db: Queryable, botId: string, channelType: string, isActive: boolean | null, config: Record<string, unknown> | null,
): Promise<DbChannel> {
  const rows = await db.query<DbChannel>(
    `insert into channels (bot_id, channel_type, is_active, config)
     values ($1, $2, coalesce($3::boolean, true), jsonb_strip_nulls(coalesce($4::text::jsonb, '{}'::jsonb)))
     on conflict (bot_id, channel_type) do update set
       is_active = coalesce($3::boolean, channels.is_active),
       config = case when $4::text is null then channels.config
                else (channels.config || $4::text::jsonb) - array(select key from jsonb_each($4::text::jsonb) where value = 'null'::jsonb) end,
       updated_at = now()
     returning bot_id, channel_type, is_active, config, updated_at`,
    [botId, channelType, isActive, config === null ? null : json(config)],
  );
  return rows[0]!;
}
