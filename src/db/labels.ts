// A bot's labels (bot_labels) and the label names conversations carry (conversations.labels).
import { CONVERSATION_COLUMNS, type DbConversation } from "./conversations.ts";
import type { Queryable } from "./driver.ts";

export interface DbLabel {
  id: string;
  bot_id: string;
  name: string;
  color: string;
  created_at: Date;
}

export async function listLabels(db: Queryable, botId: string): Promise<DbLabel[]> {
  return db.query<DbLabel>(`select id, bot_id, name, color, created_at from bot_labels where bot_id = $1 order by name`, [botId]);
}

export async function countLabels(db: Queryable, botId: string): Promise<number> {
  const rows = await db.query<{ n: number | string }>(`select count(*) as n from bot_labels where bot_id = $1`, [botId]);
  return Number(rows[0]?.n ?? 0);
}

/** undefined when the bot already has a label of that name. */
export async function insertLabel(db: Queryable, botId: string, name: string, color: string): Promise<DbLabel | undefined> {
  const rows = await db.query<DbLabel>(
    `insert into bot_labels (bot_id, name, color) values ($1, $2, $3) on conflict (bot_id, name) do nothing
     returning id, bot_id, name, color, created_at`,
    [botId, name, color],
  );
  return rows[0];
}

/** Deletes the label and takes its name off the bot's conversations; the conversations changed. */
export async function deleteLabel(db: Queryable, botId: string, labelId: string): Promise<{ found: boolean; changed: DbConversation[] }> {
  const rows = await db.query<{ name: string }>(`delete from bot_labels where bot_id = $1 and id = $2 returning name`, [botId, labelId]);
  if (!rows[0]) return { found: false, changed: [] };
  const changed = await db.query<DbConversation>(
    `update conversations c set labels = array_remove(c.labels, $2), updated_at = now()
     where c.bot_id = $1 and c.labels <> '{}' and c.labels @> array[$2]::text[] returning ${CONVERSATION_COLUMNS}`,
    [botId, rows[0].name],
  );
  return { found: true, changed };
}

/** The names among `names` the bot has as labels. */
export async function existingLabelNames(db: Queryable, botId: string, names: string[]): Promise<Set<string>> {
  if (names.length === 0) return new Set();
  const rows = await db.query<{ name: string }>(`select name from bot_labels where bot_id = $1 and name = any($2::text[])`, [botId, names]);
  return new Set(rows.map((r) => r.name));
}

/**
 * Sets the labels (`set` not null) or adds and removes some, in one statement so two
 * operators labelling at once both count; sorted, so the order never depends on who came first.
 */
export async function changeConversationLabels(
  db: Queryable, conversationId: string, change: { set: string[] | null; add: string[]; remove: string[] },
): Promise<DbConversation> {
  const rows = await db.query<DbConversation>(
    `update conversations c set labels = array(
       select distinct l from unnest(coalesce($2::text[], c.labels) || $3::text[]) l where not (l = any($4::text[])) order by l
     ), updated_at = now()
     where c.id = $1 returning ${CONVERSATION_COLUMNS}`,
    [conversationId, change.set, change.add, change.remove],
  );
  return rows[0]!;
}
