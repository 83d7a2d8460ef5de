// Labels: a bot's named colours (the owner keeps the list) that members put on conversations,
// filter the inbox by and change in bulk. A conversation carries label names; a label's
// deletion takes its name off every conversation of the bot.
import { badRequest, conflict, notFound } from "../core/errors.ts";
import type { Effects, PlatformEvent } from "../core/events.ts";
import type { DbConversation } from "../db/conversations.ts";
import type { Db } from "../db/driver.ts";
import {
  changeConversationLabels, countLabels, deleteLabel, existingLabelNames, insertLabel, listLabels, type DbLabel,
} from "../db/labels.ts";
import { assigneesOf, withRelations } from "./inbox_view.ts";
import { requireMember } from "./members.ts";

/** Why: a label list longer than this is no longer something an operator scans by eye. */
export const MAX_LABELS_PER_BOT = 100;
/** A chip, not a sentence. */
export const MAX_LABEL_NAME_LENGTH = 50;
/** The inbox filter and the chips need a plain #rrggbb. */
export const LABEL_COLOR_PATTERN = "^#[0-9a-fA-F]{6}$";

export interface Label {
  id: string;
  bot_id: string;
  name: string;
  color: string;
  created_at: string;
}

type LabelDeps = { db: Db; dispatch(effects: Effects): Promise<void> };

const toLabel = (row: DbLabel): Label => ({ id: row.id, bot_id: row.bot_id, name: row.name, color: row.color.toLowerCase(), created_at: row.created_at.toISOString() });

export async function labelsOfBot(deps: { db: Db }, userId: string, botId: string): Promise<Label[]> {
  await requireMember(deps.db, userId, botId);
  return (await listLabels(deps.db, botId)).map(toLabel);
}

export async function createLabel(deps: { db: Db }, userId: string, botId: string, input: { name: string; color: string }): Promise<Label> {
  await requireMember(deps.db, userId, botId, "owner");
  const name = input.name.trim();
  if (!name) throw badRequest("name: must not be empty");
  if (name.includes(",")) throw badRequest("name: must not contain a comma (the inbox filter lists names with commas)");
  if ((await countLabels(deps.db, botId)) >= MAX_LABELS_PER_BOT) throw badRequest(`a bot has at most ${MAX_LABELS_PER_BOT} labels`);
  const row = await insertLabel(deps.db, botId, name, input.color);
  if (!row) throw conflict(`label "${name}" already exists`);
  return toLabel(row);
}

export async function removeLabel(deps: LabelDeps, userId: string, botId: string, labelId: string): Promise<true> {
  await requireMember(deps.db, userId, botId, "owner");
  const { found, changed } = await deps.db.transaction((tx) => deleteLabel(tx, botId, labelId));
  if (!found) throw notFound("label");
  await announce(deps, changed);
  return true;
}

/** 400 naming the first name that is not one of the bot's labels. */
export async function requireLabels(db: Db, botId: string, names: string[]): Promise<string[]> {
  const unique = [...new Set(names)];
  const known = await existingLabelNames(db, botId, unique);
  const unknown = unique.find((n) => !known.has(n));
  if (unknown !== undefined) throw badRequest(`labels: "${unknown}" is not a label of this bot`);
  return unique;
}

/** Changes a conversation's labels and tells live views (conversation_updated with the snapshot). */
export async function relabel(
  deps: LabelDeps, conversation: DbConversation, change: { set?: string[]; add?: string[]; remove?: string[] },
): Promise<DbConversation> {
  const set = change.set ? await requireLabels(deps.db, conversation.bot_id, change.set) : null;
  const add = change.add ? await requireLabels(deps.db, conversation.bot_id, change.add) : [];
  const row = await changeConversationLabels(deps.db, conversation.id, { set, add, remove: change.remove ?? [] });
  await announce(deps, [row]);
  return row;
}

async function announce(deps: LabelDeps, rows: DbConversation[]): Promise<void> {
  if (rows.length === 0) return;
  const [cards, assignees] = await Promise.all([withRelations(deps, rows), assigneesOf(deps.db, rows.map((r) => r.id))]);
  const events: PlatformEvent[] = cards.map((card, i) => ({
    kind: "conversation_updated", owner_id: rows[i]!.owner_id, bot_id: rows[i]!.bot_id,
    conversation: { ...card, assignee: assignees.get(card.id) ?? null },
  }));
  await deps.dispatch({ events, updates: [] });
}
