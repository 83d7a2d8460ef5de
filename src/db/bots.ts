import type { Queryable } from "./driver.ts";

export interface DbBot {
  id: string;
  owner_id: string;
  number: number;
  name: string;
  username: string;
  description: string | null;
  webhook_url: string | null;
  token_hash: string;
  token_encrypted: string;
  widget_key: string;
  integration_key: string;
  created_at: Date;
  updated_at: Date;
}

const BOT_COLUMNS = `id, owner_id, number, name, username, description, webhook_url, token_hash,
  token_encrypted, widget_key, integration_key, created_at, updated_at`;

export interface NewBot {
  id: string;
  ownerId: string;
  number: number;
  name: string;
  username: string;
  description: string | null;
  webhookUrl: string | null;
  tokenHash: string;
  tokenEncrypted: string;
  widgetKey: string;
  integrationKey: string;
}

/** The token embeds the number, so the number is drawn before the row is written. */
export async function nextBotNumber(db: Queryable): Promise<number> {
  const rows = await db.query<{ n: number }>(`select nextval('bot_number_seq') as n`);
  return Number(rows[0]!.n);
}

/** Returns undefined when the username is taken. */
export async function insertBot(db: Queryable, bot: NewBot): Promise<DbBot | undefined> {
  const rows = await db.query<DbBot>(
    `insert into bots (id, owner_id, number, name, username, description, webhook_url, token_hash,
                       token_encrypted, widget_key, integration_key)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
     on conflict ((lower(username))) do nothing
     returning ${BOT_COLUMNS}`,
    [bot.id, bot.ownerId, bot.number, bot.name, bot.username, bot.description, bot.webhookUrl,
      bot.tokenHash, bot.tokenEncrypted, bot.widgetKey, bot.integrationKey],
  );
  return rows[0];
}

export async function findBotById(db: Queryable, botId: string): Promise<DbBot | undefined> {
  const rows = await db.query<DbBot>(`select ${BOT_COLUMNS} from bots where id = $1`, [botId]);
  return rows[0];
}

export async function findBotByTokenHash(db: Queryable, tokenHash: string): Promise<DbBot | undefined> {
  const rows = await db.query<DbBot>(`select ${BOT_COLUMNS} from bots where token_hash = $1`, [tokenHash]);
  return rows[0];
}

export async function findBotByWidgetKey(db: Queryable, widgetKey: string): Promise<DbBot | undefined> {
  const rows = await db.query<DbBot>(`select ${BOT_COLUMNS} from bots where widget_key = $1`, [widgetKey]);
  return rows[0];
}

export async function findBotByIntegrationKey(db: Queryable, integrationKey: string): Promise<DbBot | undefined> {
  const rows = await db.query<DbBot>(`select ${BOT_COLUMNS} from bots where integration_key = $1`, [integrationKey]);
  return rows[0];
}

export async function updateBotToken(db: Queryable, botId: string, tokenHash: string, tokenEncrypted: string): Promise<DbBot | undefined> {
  const rows = await db.query<DbBot>(
    `update bots set token_hash = $2, token_encrypted = $3, updated_at = now()
     where id = $1 returning ${BOT_COLUMNS}`,
    [botId, tokenHash, tokenEncrypted],
  );
  return rows[0];
}

/** Rename (name and/or description; null keeps the current value). The username stays: clients address the bot by it. */
export async function updateBotProfile(db: Queryable, botId: string, name: string | null, description: string | null): Promise<DbBot | undefined> {
  const rows = await db.query<DbBot>(
    `update bots set name = coalesce($2, name), description = coalesce($3, description), updated_at = now()
     where id = $1 returning ${BOT_COLUMNS}`,
    [botId, name, description],
  );
  return rows[0];
}

/** Deletes the bot; its channels, contacts, conversations, messages, members and the rest go by cascade. */
export async function deleteBot(db: Queryable, botId: string): Promise<boolean> {
  const rows = await db.query(`delete from bots where id = $1 returning 1`, [botId]);
  return rows.length > 0;
}
