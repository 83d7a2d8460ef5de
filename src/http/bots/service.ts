import { randomUUID } from "node:crypto";
import { AppError, notFound } from "../../core/errors.ts";
import type { Config } from "../../config.ts";
import type { Db, Queryable } from "../../db/driver.ts";
import { insertBot, nextBotNumber, updateBotToken, type DbBot } from "../../db/bots.ts";
import { countOwnedBots, insertMember, listMemberBots, type MemberRole } from "../../db/members.ts";
import { requireMember } from "../../domain/members.ts";
import { hashToken, randomKey, type SecretBox } from "../../secrets.ts";
import { checkWebhookUrl, storeWebhook } from "../../domain/webhooks.ts";
import type { Bot, BotCreateRequest } from "./model.ts";

/** 24 random bytes → 32 url-safe characters, Telegram's token secret length. */
const TOKEN_SECRET_BYTES = 24;
/** Public keys only need to be unguessable, not secret: 16 bytes suffice. */
const PUBLIC_KEY_BYTES = 16;
/** Telegram caps usernames at 32 characters. */
const MAX_USERNAME_LENGTH = 32;

export function newBotToken(number: number): string {
  return `${number}:${randomKey(TOKEN_SECRET_BYTES)}`;
}

/** "Support Bot!" → "support_bot"; always ends in "bot" as Telegram requires. */
export function usernameFromName(name: string, suffix = ""): string {
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
export const toBot = (row: DbBot, box: SecretBox, role: MemberRole): Bot => ({
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
/** The cap does not lift by waiting; the hint only keeps 429's contract (DESIGN §4). */
const BOT_CAP_RETRY_AFTER_SECONDS = 3600;

/** A webhook_url given here is checked and stored as set-webhook would (workers find it at their next scan). */
export async function createBot(
  db: Db, box: SecretBox, ownerId: string, input: BotCreateRequest, config: Pick<Config, "allowPrivateWebhooks">,
): Promise<Bot> {
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
    if (row) return toBot(row, box, "owner");
  }
  // The number is unique, so the second candidate can only be taken by a deliberately
  // chosen name; a third with randomness always succeeds.
  return createBot(db, box, ownerId, { ...input, name: `${input.name} ${randomKey(3)}` }, config);
}

/** Every bot the user is a member of, with their role on it. */
export async function listBots(db: Queryable, box: SecretBox, userId: string): Promise<Bot[]> {
  return (await listMemberBots(db, userId)).map((row) => toBot(row, box, row.role));
}

export async function rotateToken(db: Queryable, box: SecretBox, userId: string, botId: string): Promise<Bot> {
  const bot = await requireMember(db, userId, botId, "owner");
  const token = newBotToken(bot.number);
  const row = await updateBotToken(db, bot.id, hashToken(token), box.seal(token));
  if (!row) throw notFound("bot");
  return toBot(row, box, "owner");
}
