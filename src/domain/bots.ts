// The bot's life as its team sees it: the owner creates it, renames it, rotates its token
// and deletes it; every member sees its card and shares its canned replies.
import { randomUUID } from "node:crypto";
import { AppError, badRequest, conflict, notFound } from "../core/errors.ts";
import { webhookChangedSubject, type WebhookChanged } from "../core/subjects.ts";
import type { EventBus } from "../bus/bus.ts";
import type { UpdateLog } from "../updates/log.ts";
import { deleteBot, insertBot, nextBotNumber, updateBotProfile, updateBotToken, type DbBot } from "../db/bots.ts";
import { countCannedReplies, deleteCannedReply, insertCannedReply, listCannedReplies, type DbCannedReply } from "../db/canned.ts";
import type { Db, Queryable } from "../db/driver.ts";
import { countOwnedBots, insertMember, listMemberBots, listMembers, type MemberRole } from "../db/members.ts";
import { hashToken, randomKey, type SecretBox } from "../secrets.ts";
import type { Config } from "../config.ts";
import { checkWebhookUrl, storeWebhook } from "./webhooks.ts";
import { endPollsOfOldToken, type BotDeps } from "./runtime.ts";
import { announceBotsChanged, requireMember } from "./members.ts";
import type { BotDirectory } from "./directory.ts";
import { findBotFileIds } from "../db/files.ts";
import type { FileStore } from "../files/store.ts";
import { removeStoredFiles } from "./files.ts";

/** Why: a list an operator can scan after typing "/"; beyond it the shortcuts stop being shortcuts. */
export const MAX_CANNED_REPLIES_PER_BOT = 200;

export interface CannedReply {
  id: string;
  shortcut: string;
  text: string;
}
const toCannedReply = (row: DbCannedReply): CannedReply => ({ id: row.id, shortcut: row.shortcut, text: row.text });

export async function cannedReplies(db: Queryable, userId: string, botId: string): Promise<CannedReply[]> {
  const bot = await requireMember(db, userId, botId);
  return (await listCannedReplies(db, bot.id)).map(toCannedReply);
}

export async function addCannedReply(db: Queryable, userId: string, botId: string, shortcut: string, text: string): Promise<CannedReply> {
  const bot = await requireMember(db, userId, botId);
  if ((await countCannedReplies(db, bot.id)) >= MAX_CANNED_REPLIES_PER_BOT) {
    throw badRequest(`a bot may have at most ${MAX_CANNED_REPLIES_PER_BOT} canned replies`);
  }
  const row = await insertCannedReply(db, bot.id, shortcut, text, userId);
  if (!row) throw conflict(`the bot already has a canned reply /${shortcut}`);
  return toCannedReply(row);
}

export async function removeCannedReply(db: Queryable, userId: string, botId: string, replyId: string): Promise<true> {
  const bot = await requireMember(db, userId, botId);
  if (!(await deleteCannedReply(db, bot.id, replyId))) throw notFound("canned reply");
  return true;
}

/** What the bot's life cycle needs: its rows, the bus, the update log, the public directory, the token box, its files' bytes. */
export type BotLifeDeps = BotDeps & {
  db: Db; bus: EventBus; updates: Pick<UpdateLog, "drop">; bots: BotDirectory; secretBox: SecretBox; config: Pick<Config, "allowPrivateWebhooks">;
  files: FileStore;
};

export async function renameBot(
  deps: BotLifeDeps, userId: string, botId: string, patch: { name?: string; description?: string },
): Promise<BotCard> {
  const bot = await requireMember(deps.db, userId, botId, "owner");
  const name = patch.name?.trim();
  if (name === "") throw badRequest("name: must not be blank");
  const row = await updateBotProfile(deps.db, bot.id, name ?? null, patch.description ?? null);
  if (!row) throw notFound("bot");
  await deps.bots.changed(bot.id).catch(() => undefined);
  const members = await listMembers(deps.db, bot.id);
  await announceBotsChanged(deps.bus, members.map((m) => m.user_id).filter((id) => id !== userId), bot.id).catch(() => undefined);
  return botCard(row, deps.secretBox, bot.role);
}

/**
 * Deletes the bot with all its data (the database cascades from bots), forgets its pending
 * updates in the update log, stops its webhook delivery and tells every member's cabinet.
 */
export async function removeBot(deps: BotLifeDeps, userId: string, botId: string): Promise<true> {
  const bot = await requireMember(deps.db, userId, botId, "owner");
  const members = await listMembers(deps.db, bot.id);
  // Their rows go with the bot (cascade); the bytes are removed right after, by these ids.
  const files = await findBotFileIds(deps.db, bot.id);
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
    // What fails here is left to the sweep, which removes bytes whose row is gone.
    removeStoredFiles(deps.files, files),
  ]);
  return true;
}

/** The bot as one member sees it (http/bots/model.ts declares the same shape). */
export interface BotCard {
  id: string;
  number: number;
  name: string;
  username: string;
  description: string | null;
  webhook_url: string | null;
  token?: string;
  widget_key: string;
  integration_key?: string;
  role: MemberRole;
  created_at: string;
}

export interface BotInput {
  name: string;
  description?: string;
  webhook_url?: string | null;
}

/** 24 random bytes → 32 url-safe characters, Telegram's token secret length. */
const TOKEN_SECRET_BYTES = 24;
/** Public keys only need to be unguessable, not secret: 16 bytes suffice. */
const PUBLIC_KEY_BYTES = 16;
/** Telegram caps usernames at 32 characters. */
const MAX_USERNAME_LENGTH = 32;

function newBotToken(number: number): string {
  return `${number}:${randomKey(TOKEN_SECRET_BYTES)}`;
}

/** "Support Bot!" → "support_bot"; always ends in "bot" as Telegram requires. */
function usernameFromName(name: string, suffix = ""): string {
  let base = name
    .normalize("NFKD")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "");
  base = base.replace(/_?bot$/, "");
  if (!base) base = "my";
  const tail = `${suffix}_bot`;
  return `${base.slice(0, MAX_USERNAME_LENGTH - tail.length)}${tail}`;
}

/** The bot as `role` may see it: an operator gets neither the token nor the integration key. */
const botCard = (row: DbBot, box: SecretBox, role: MemberRole): BotCard => ({
  id: row.id,
  number: row.number,
  name: row.name,
  username: row.username,
  description: row.description,
  webhook_url: row.webhook_url,
  ...(role === "owner" ? { token: box.open(row.token_encrypted), integration_key: row.integration_key } : {}),
  widget_key: row.widget_key,
  role,
  created_at: row.created_at.toISOString(),
});

/** Far above any real operator's needs; without it one account could mint bots (and tokens, keys) without end. */
export const MAX_BOTS_PER_USER = 100;
/** The cap does not lift by waiting; the hint only keeps 429's contract (docs/design.md §4). */
const BOT_CAP_RETRY_AFTER_SECONDS = 3600;

/**
 * A webhook_url given here is checked and stored as set-webhook would (workers find it at
 * their next scan); the creator's open inbox streams start following the new bot.
 */
export async function createBot(deps: BotLifeDeps, ownerId: string, input: BotInput): Promise<BotCard> {
  const bot = await insertNewBot(deps.db, deps.secretBox, ownerId, input, deps.config);
  await announceBotsChanged(deps.bus, [ownerId], bot.id).catch(() => undefined);
  return bot;
}

async function insertNewBot(
  db: Db, box: SecretBox, ownerId: string, input: BotInput, config: Pick<Config, "allowPrivateWebhooks">,
): Promise<BotCard> {
  if ((await countOwnedBots(db, ownerId)) >= MAX_BOTS_PER_USER) {
    throw new AppError("rate_limited", `a user may have at most ${MAX_BOTS_PER_USER} bots`, BOT_CAP_RETRY_AFTER_SECONDS);
  }
  const webhookUrl = input.webhook_url ?? null;
  if (webhookUrl) await checkWebhookUrl(config, webhookUrl, "webhook_url");
  const number = await nextBotNumber(db);
  const token = newBotToken(number);
  const candidates = [usernameFromName(input.name), usernameFromName(input.name, String(number))];
  for (const username of candidates) {
    const row = await db.transaction(async (tx) => {
      const inserted = await insertBot(tx, {
        id: randomUUID(),
        ownerId,
        number,
        name: input.name,
        username,
        description: input.description ?? null,
        webhookUrl,
        tokenHash: hashToken(token),
        tokenEncrypted: box.seal(token),
        widgetKey: `wk_${randomKey(PUBLIC_KEY_BYTES)}`,
        integrationKey: `ik_${randomKey(PUBLIC_KEY_BYTES)}`,
      });
      if (inserted) await insertMember(tx, inserted.id, ownerId, "owner");
      if (inserted && webhookUrl) await storeWebhook(tx, inserted.id, { url: webhookUrl });
      return inserted;
    });
    if (row) return botCard(row, box, "owner");
  }
  // The number is unique, so the second candidate can only be taken by a deliberately
  // chosen name; a third with randomness always succeeds.
  return insertNewBot(db, box, ownerId, { ...input, name: `${input.name} ${randomKey(3)}` }, config);
}

/** Every bot the user is a member of, with their role on it. */
export async function listBots(deps: Pick<BotLifeDeps, "db" | "secretBox">, userId: string): Promise<BotCard[]> {
  return (await listMemberBots(deps.db, userId)).map((row) => botCard(row, deps.secretBox, row.role));
}

/** The bot's card for a member: the token and integration key only for its owner. */
export async function memberBot(deps: Pick<BotLifeDeps, "db" | "secretBox">, userId: string, botId: string): Promise<BotCard> {
  const bot = await requireMember(deps.db, userId, botId);
  return botCard(bot, deps.secretBox, bot.role);
}

/** The old token stops working at once, in every process, and a poll parked with it ends. */
export async function rotateToken(deps: BotLifeDeps, userId: string, botId: string): Promise<BotCard> {
  const bot = await requireMember(deps.db, userId, botId, "owner");
  const token = newBotToken(bot.number);
  const row = await updateBotToken(deps.db, bot.id, hashToken(token), deps.secretBox.seal(token));
  if (!row) throw notFound("bot");
  await deps.bots.changed(bot.id);
  await endPollsOfOldToken(deps, bot.id);
  return botCard(row, deps.secretBox, "owner");
}
