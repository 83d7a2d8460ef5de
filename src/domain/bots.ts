// The bot's life as its team sees it: canned replies any member uses, and the owner's
// rename and delete.
import { badRequest, conflict, notFound } from "../core/errors.ts";
import { webhookChangedSubject, type WebhookChanged } from "../core/subjects.ts";
import type { EventBus } from "../bus/bus.ts";
import type { UpdateLog } from "../updates/log.ts";
import { deleteBot, updateBotProfile, type DbBot } from "../db/bots.ts";
import { countCannedReplies, deleteCannedReply, insertCannedReply, listCannedReplies, type DbCannedReply } from "../db/canned.ts";
import type { Db, Queryable } from "../db/driver.ts";
import { listMembers, type MemberRole } from "../db/members.ts";
import { announceBotsChanged, requireMember } from "./members.ts";
import type { BotDirectory } from "./directory.ts";

/** Why: a list an operator can scan after typing "/"; beyond it the shortcuts stop being shortcuts. */
export const MAX_CANNED_REPLIES_PER_BOT = 200;

export async function cannedReplies(db: Queryable, userId: string, botId: string): Promise<DbCannedReply[]> {
  const bot = await requireMember(db, userId, botId);
  return listCannedReplies(db, bot.id);
}

export async function addCannedReply(db: Queryable, userId: string, botId: string, shortcut: string, text: string): Promise<DbCannedReply> {
  const bot = await requireMember(db, userId, botId);
  if ((await countCannedReplies(db, bot.id)) >= MAX_CANNED_REPLIES_PER_BOT) {
    throw badRequest(`a bot may have at most ${MAX_CANNED_REPLIES_PER_BOT} canned replies`);
  }
  const row = await insertCannedReply(db, bot.id, shortcut, text, userId);
  if (!row) throw conflict(`the bot already has a canned reply /${shortcut}`);
  return row;
}

export async function removeCannedReply(db: Queryable, userId: string, botId: string, replyId: string): Promise<true> {
  const bot = await requireMember(db, userId, botId);
  if (!(await deleteCannedReply(db, bot.id, replyId))) throw notFound("canned reply");
  return true;
}

type BotDeps = { db: Db; bus: EventBus; updates: UpdateLog; bots: BotDirectory };

export async function renameBot(
  deps: BotDeps, userId: string, botId: string, patch: { name?: string; description?: string },
): Promise<DbBot & { role: MemberRole }> {
  const bot = await requireMember(deps.db, userId, botId, "owner");
  const name = patch.name?.trim();
  if (name === "") throw badRequest("name: must not be blank");
  const row = await updateBotProfile(deps.db, bot.id, name ?? null, patch.description ?? null);
  if (!row) throw notFound("bot");
  await deps.bots.changed(bot.id).catch(() => undefined);
  const members = await listMembers(deps.db, bot.id);
  await announceBotsChanged(deps.bus, members.map((m) => m.user_id).filter((id) => id !== userId), bot.id).catch(() => undefined);
  return { ...row, role: bot.role };
}

/**
 * Deletes the bot with all its data (the database cascades from bots), forgets its pending
 * updates in the update log, stops its webhook delivery and tells every member's cabinet.
 */
export async function removeBot(deps: BotDeps, userId: string, botId: string): Promise<true> {
  const bot = await requireMember(deps.db, userId, botId, "owner");
  const members = await listMembers(deps.db, bot.id);
  if (!(await deleteBot(deps.db, bot.id))) throw notFound("bot");
  // Committed: what follows only tidies up, so its failure (NATS away) must not turn the
  // answer into an error. The token no longer authenticates, so nothing can read the log;
  // drop purges what it holds (and what is left expires with the log's retention).
  const dropped: WebhookChanged = { dropped: true };
  await Promise.allSettled([
    deps.updates.drop(bot.id),
    // Public requests in every process stop finding it (a kept copy would only reach its deleted row).
    deps.bots.changed(bot.id),
    deps.bus.publish(webhookChangedSubject(bot.id), dropped),
    announceBotsChanged(deps.bus, members.map((m) => m.user_id), bot.id),
  ]);
  return true;
}
