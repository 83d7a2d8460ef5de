// set-webhook, get-webhook-info, delete-webhook and the delivery log, as functions of a bot,
// so the native routes and the Telegram facade share one implementation.
import { requireMember } from "./members.ts";
import type { DbBot } from "../db/bots.ts";
import type { Db, Queryable } from "../db/driver.ts";
import { badRequest } from "../core/errors.ts";
import { UPDATE_KINDS, type UpdateKind } from "../core/updates.ts";
import { botActor } from "./runtime.ts";
import type { Config } from "../config.ts";
import type { EventBus } from "../bus/bus.ts";
import type { Logger } from "../logger.ts";
import type { UpdateLog } from "../updates/log.ts";
import type { BotDeps } from "./runtime.ts";
import {
  clearWebhook, findWebhook, listAttempts, listCallbackDeliveries, upsertWebhook, type DbAttempt, type DbCallbackDelivery,
  type WebhookFormat,
} from "../db/webhooks.ts";
import { checkTarget, UrlRefused, type Resolver } from "../delivery/ssrf.ts";
import { pollSubject, webhookChangedSubject, type WebhookChanged } from "../core/subjects.ts";

/** What the webhook settings use cases need. */
export interface WebhookDeps extends BotDeps {
  config: Pick<Config, "allowPrivateWebhooks">;
  db: Db;
  bus: EventBus;
  logger: Logger;
  updates: Pick<UpdateLog, "drop" | "pendingCount">;
}

/** Telegram's default and ceiling for parallel webhook connections. */
export const DEFAULT_MAX_CONNECTIONS = 40;
export const MAX_MAX_CONNECTIONS = 100;
/** Telegram's secret_token rules: 1..256 of A-Z a-z 0-9 _ -. */
export const SECRET_TOKEN_PATTERN = "^[A-Za-z0-9_-]{1,256}$";

export interface SetWebhookInput {
  url: string;
  secret_token?: string;
  max_connections?: number;
  allowed_updates?: UpdateKind[];
  drop_pending_updates?: boolean;
}

export interface WebhookInfo {
  url: string;
  has_custom_certificate: false;
  pending_update_count: number;
  last_error_date?: number;
  last_error_message?: string;
  max_connections: number;
  allowed_updates?: UpdateKind[];
}

/** The URL check of set-webhook and of bot creation: http(s), and a public address unless allowed. */
export async function checkWebhookUrl(
  config: Pick<Config, "allowPrivateWebhooks">, url: string, field = "url", resolve?: Resolver,
): Promise<void> {
  try {
    await checkTarget(url, { allowPrivate: config.allowPrivateWebhooks, resolve });
  } catch (err) {
    if (err instanceof UrlRefused) throw badRequest(`${field}: ${err.message}`);
    throw err;
  }
}

/** Validation the request model cannot express (it already checked types and ranges). */
function checkInput(input: SetWebhookInput): void {
  if (input.secret_token !== undefined && !new RegExp(SECRET_TOKEN_PATTERN).test(input.secret_token)) {
    throw badRequest("secret_token: 1..256 characters of A-Z, a-z, 0-9, _ and -");
  }
  const n = input.max_connections;
  if (n !== undefined && (!Number.isInteger(n) || n < 1 || n > MAX_MAX_CONNECTIONS)) {
    throw badRequest(`max_connections: an integer 1..${MAX_MAX_CONNECTIONS}`);
  }
  for (const kind of input.allowed_updates ?? []) {
    if (!UPDATE_KINDS.includes(kind)) throw badRequest(`allowed_updates: "${kind}" is not one of ${UPDATE_KINDS.join(", ")}`);
  }
}

/** Stores a webhook without side effects on polls or workers (bot creation runs it in its transaction). */
export async function storeWebhook(db: Queryable, botId: string, input: SetWebhookInput, format: WebhookFormat = "native"): Promise<void> {
  await upsertWebhook(db, botId, {
    format,
    url: input.url,
    secretToken: input.secret_token ?? null,
    maxConnections: input.max_connections ?? DEFAULT_MAX_CONNECTIONS,
    allowedUpdates: input.allowed_updates === undefined ? undefined : [...new Set(input.allowed_updates)],
  });
}

/** Tells every process: parked polls end with 409, workers pick up the new settings. */
async function announce(deps: WebhookDeps, botId: string, change: WebhookChanged, endPolls: boolean): Promise<void> {
  if (endPolls) {
    await botActor(deps, botId).ask((actor) => actor.endPollForWebhook());
    // Polls parked in other web processes end as if a newer poll had come (also a 409).
    await deps.bus.publish(pollSubject(botId), { instance: "set-webhook", poll: "set-webhook" }).catch(() => undefined);
  }
  await deps.bus.publish(webhookChangedSubject(botId), change).catch((err) =>
    deps.logger.warn({ err, bot: botId }, "announcing a webhook change failed; workers see it at their next scan"),
  );
}

/** `format` "telegram": the facade's setWebhook, whose receiver gets Telegram's shapes and may answer with a method. */
export async function setWebhook(
  deps: WebhookDeps, bot: Pick<DbBot, "id">, input: SetWebhookInput, format: WebhookFormat = "native",
): Promise<true> {
  checkInput(input);
  await checkWebhookUrl(deps.config, input.url);
  await storeWebhook(deps.db, bot.id, input, format);
  if (input.drop_pending_updates) await deps.updates.drop(bot.id);
  await announce(deps, bot.id, { dropped: Boolean(input.drop_pending_updates) }, true);
  return true;
}

export async function deleteWebhook(deps: WebhookDeps, bot: Pick<DbBot, "id">, dropPendingUpdates = false): Promise<true> {
  await clearWebhook(deps.db, bot.id);
  if (dropPendingUpdates) await deps.updates.drop(bot.id);
  await announce(deps, bot.id, { dropped: dropPendingUpdates }, false);
  return true;
}

export async function getWebhookInfo(deps: WebhookDeps, bot: Pick<DbBot, "id">): Promise<WebhookInfo> {
  const [row, pending] = await Promise.all([findWebhook(deps.db, bot.id), deps.updates.pendingCount(bot.id)]);
  const info: WebhookInfo = {
    url: row?.url ?? "",
    has_custom_certificate: false,
    pending_update_count: pending,
    max_connections: row?.url ? row.max_connections : DEFAULT_MAX_CONNECTIONS,
  };
  if (row?.last_error_date) info.last_error_date = Math.floor(row.last_error_date.getTime() / 1000);
  if (row?.last_error_message) info.last_error_message = row.last_error_message;
  if (row?.url && row.allowed_updates) info.allowed_updates = row.allowed_updates;
  return info;
}

// ---- the cabinet's delivery log ------------------------------------------------------------

const toAttempt = (row: DbAttempt) => ({
  id: row.id,
  kind: row.kind,
  update_id: row.update_id,
  message_id: row.message_id,
  url: row.url,
  status_code: row.status_code,
  latency_ms: row.latency_ms,
  error: row.error,
  attempted_at: row.attempted_at.toISOString(),
});

const toCallbackDelivery = (row: DbCallbackDelivery) => ({
  message_id: row.message_id,
  conversation_id: row.conversation_id,
  state: row.state,
  attempts: row.attempts,
  last_status: row.last_status,
  last_error: row.last_error,
  next_attempt_at: row.state === "pending" ? row.next_attempt_at.toISOString() : null,
  created_at: row.created_at.toISOString(),
  finished_at: row.finished_at?.toISOString() ?? null,
});

/** The bot's latest webhook delivery attempts (owner only). */
export async function listDeliveries(db: Db, userId: string, botId: string, limit: number) {
  const bot = await requireMember(db, userId, botId, "owner");
  return (await listAttempts(db, bot.id, limit)).map(toAttempt);
}

/** The bot's latest channel callbacks and where each stands (owner only). */
export async function listCallbackStates(db: Db, userId: string, botId: string, limit: number) {
  const bot = await requireMember(db, userId, botId, "owner");
  return (await listCallbackDeliveries(db, bot.id, limit)).map(toCallbackDelivery);
}
