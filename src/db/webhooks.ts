// SQL for webhooks, channel callbacks and the delivery log (sql/004_webhooks.sql).
import type { Queryable } from "./driver.ts";
import { json } from "./driver.ts";

import type { UpdateKind } from "../core/updates.ts";
/** The shape of what a webhook is sent: native Updates, or Telegram's (set through the facade). */
export type WebhookFormat = "native" | "telegram";

export interface DbWebhook {
  bot_id: string;
  /** null: no webhook now; the row still carries the last error for get-webhook-info. */
  url: string | null;
  secret_token: string | null;
  max_connections: number;
  allowed_updates: UpdateKind[] | null;
  format: WebhookFormat;
  last_error_date: Date | null;
  last_error_message: string | null;
}

const WEBHOOK_COLUMNS = `bot_id, url, secret_token, max_connections, allowed_updates, format, last_error_date, last_error_message`;

export async function findWebhook(db: Queryable, botId: string): Promise<DbWebhook | undefined> {
  const rows = await db.query<DbWebhook>(`select ${WEBHOOK_COLUMNS} from webhooks where bot_id = $1`, [botId]);
  return rows[0];
}

export interface WebhookSettings {
  url: string;
  secretToken: string | null;
  maxConnections: number;
  /** undefined keeps the stored list, as Telegram's setWebhook does. */
  allowedUpdates: UpdateKind[] | undefined;
  format: WebhookFormat;
}

/** Sets the webhook and mirrors its URL onto the bot card; a new URL starts with a clean error record. */
export async function upsertWebhook(db: Queryable, botId: string, s: WebhookSettings): Promise<void> {
  await db.query(
    `with w as (
       insert into webhooks (bot_id, url, secret_token, max_connections, allowed_updates, format)
       values ($1, $2, $3, $4, $5::text::jsonb, $7)
       on conflict (bot_id) do update set
         url = excluded.url,
         secret_token = excluded.secret_token,
         max_connections = excluded.max_connections,
         format = excluded.format,
         allowed_updates = case when $6 then excluded.allowed_updates else webhooks.allowed_updates end,
         last_error_date = case when webhooks.url is distinct from excluded.url then null else webhooks.last_error_date end,
         last_error_message = case when webhooks.url is distinct from excluded.url then null else webhooks.last_error_message end,
         updated_at = now()
       returning bot_id
     )
     update bots set webhook_url = $2, updated_at = now() where id in (select bot_id from w)`,
    [botId, s.url, s.secretToken, s.maxConnections, s.allowedUpdates === undefined ? null : json(s.allowedUpdates),
      s.allowedUpdates !== undefined, s.format],
  );
}

/** delete-webhook: back to polling with a clean record; the card's URL goes too. */
export async function clearWebhook(db: Queryable, botId: string): Promise<void> {
  await db.query(
    `with w as (
       update webhooks set url = null, secret_token = null, last_error_date = null, last_error_message = null, updated_at = now()
       where bot_id = $1 returning bot_id
     )
     update bots set webhook_url = null, updated_at = now() where id = $1`,
    [botId],
  );
}

/** The receiver answered 410 Gone: remove the webhook (only if still this URL) and keep why. */
export async function removeGoneWebhook(db: Queryable, botId: string, url: string, at: Date, message: string): Promise<boolean> {
  const rows = await db.query<{ id: string }>(
    `with w as (
       update webhooks set url = null, secret_token = null, last_error_date = $3, last_error_message = $4, updated_at = now()
       where bot_id = $1 and url = $2 returning bot_id
     )
     update bots set webhook_url = null, updated_at = now() where id in (select bot_id from w) returning id`,
    [botId, url, at, message],
  );
  return rows.length > 0;
}

/** Only while the webhook still has this URL: an old URL's failure must not stick to a new one. */
export async function recordWebhookError(db: Queryable, botId: string, url: string, at: Date, message: string): Promise<void> {
  await db.query(
    `update webhooks set last_error_date = $3, last_error_message = $4 where bot_id = $1 and url = $2`,
    [botId, url, at, message],
  );
}

export async function listWebhookBotIds(db: Queryable): Promise<string[]> {
  const rows = await db.query<{ bot_id: string }>(`select bot_id from webhooks where url is not null`);
  return rows.map((r) => r.bot_id);
}

// ---- channel callbacks -------------------------------------------------------------------

export type CallbackState = "pending" | "delivered" | "failed";

/**
 * Queues an outgoing message for its channel's callback_url, if that channel has one and is
 * active. Idempotent (one row per message). Usable inside the transaction that stores the
 * message. Returns whether a row was queued now.
 */
export async function enqueueCallback(db: Queryable, messageId: string, callbackChannels: readonly string[]): Promise<boolean> {
  const rows = await db.query(
    `insert into callback_deliveries (message_id, bot_id, conversation_id, seq)
     select m.id, m.bot_id, m.conversation_id, m.message_id
     from messages m
     join conversations c on c.id = m.conversation_id
     join channels ch on ch.bot_id = c.bot_id and ch.channel_type = c.channel
     where m.id = $1 and m.direction = 'out' and not m.private and ch.is_active and ch.channel_type = any($2::text::text[])
       and coalesce(ch.config->>'callback_url', '') <> ''
     on conflict (message_id) do nothing
     returning message_id`,
    [messageId, `{${callbackChannels.join(",")}}`],
  );
  return rows.length > 0;
}

/**
 * The safety net for events the bus lost (no worker was up, a crash after commit): queues
 * outgoing messages on callback channels created since `since` (and since their channel was
 * last configured) that have no row yet. Returns the bots that got work.
 */
export async function enqueueMissedCallbacks(db: Queryable, since: Date, callbackChannels: readonly string[]): Promise<string[]> {
  const rows = await db.query<{ bot_id: string }>(
    `insert into callback_deliveries (message_id, bot_id, conversation_id, seq)
     select m.id, m.bot_id, m.conversation_id, m.message_id
     from channels ch
     join messages m on m.bot_id = ch.bot_id and m.direction = 'out' and not m.private and m.created_at > greatest(ch.updated_at, $1::timestamptz)
     join conversations c on c.id = m.conversation_id and c.channel = ch.channel_type
     where ch.is_active and ch.channel_type = any($2::text::text[]) and coalesce(ch.config->>'callback_url', '') <> ''
       and not exists (select 1 from callback_deliveries d where d.message_id = m.id)
     on conflict (message_id) do nothing
     returning bot_id`,
    [since, `{${callbackChannels.join(",")}}`],
  );
  return [...new Set(rows.map((r) => r.bot_id))];
}

export async function listBotsWithPendingCallbacks(db: Queryable): Promise<string[]> {
  const rows = await db.query<{ bot_id: string }>(`select distinct bot_id from callback_deliveries where state = 'pending'`);
  return rows.map((r) => r.bot_id);
}

export interface PendingCallback {
  message_id: string;
  conversation_id: string;
  seq: number;
  attempts: number;
  next_attempt_at: Date;
  created_at: Date;
  channel: string;
  /** From the channel's config now: a changed URL or secret applies to queued messages too. */
  callback_url: string | null;
  secret: string | null;
}

/** A bot's pending callbacks in message order (per conversation, the head goes first). */
export async function listPendingCallbacks(db: Queryable, botId: string, limit: number): Promise<PendingCallback[]> {
  return db.query<PendingCallback>(
    `select d.message_id, d.conversation_id, d.seq, d.attempts, d.next_attempt_at, d.created_at, c.channel,
            nullif(ch.config->>'callback_url', '') as callback_url, nullif(ch.config->>'secret', '') as secret
     from callback_deliveries d
     join conversations c on c.id = d.conversation_id
     left join channels ch on ch.bot_id = c.bot_id and ch.channel_type = c.channel
     where d.bot_id = $1 and d.state = 'pending'
     order by d.seq
     limit $2`,
    [botId, limit],
  );
}

/** Ends a delivery as delivered or failed. */
export async function finishCallback(
  db: Queryable, messageId: string, state: "delivered" | "failed", status: number | null, error: string | null,
): Promise<void> {
  await db.query(
    `update callback_deliveries set state = $2, attempts = attempts + 1, last_status = $3, last_error = $4, finished_at = now()
     where message_id = $1 and state = 'pending'`,
    [messageId, state, status, error],
  );
}

/** Ends a delivery without an attempt (expired, no callback_url any more). */
export async function abandonCallback(db: Queryable, messageId: string, error: string): Promise<void> {
  await db.query(
    `update callback_deliveries set state = 'failed', last_error = $2, finished_at = now() where message_id = $1 and state = 'pending'`,
    [messageId, error],
  );
}

export async function retryCallbackLater(db: Queryable, messageId: string, nextAt: Date, status: number | null, error: string): Promise<void> {
  await db.query(
    `update callback_deliveries set attempts = attempts + 1, next_attempt_at = $2, last_status = $3, last_error = $4
     where message_id = $1 and state = 'pending'`,
    [messageId, nextAt, status, error],
  );
}

export interface DbCallbackDelivery {
  message_id: string;
  conversation_id: string;
  state: CallbackState;
  attempts: number;
  last_status: number | null;
  last_error: string | null;
  next_attempt_at: Date;
  created_at: Date;
  finished_at: Date | null;
}

/** The bot's most recent callback deliveries, newest first. */
export async function listCallbackDeliveries(db: Queryable, botId: string, limit: number): Promise<DbCallbackDelivery[]> {
  return db.query<DbCallbackDelivery>(
    `select message_id, conversation_id, state, attempts, last_status, last_error, next_attempt_at, created_at, finished_at
     from callback_deliveries where bot_id = $1 order by created_at desc, seq desc limit $2`,
    [botId, limit],
  );
}

/** Delivery state per message id (the inbox's Message.delivery); messages without a callback are absent. */
export async function findCallbackStates(db: Queryable, messageIds: string[]): Promise<Map<string, CallbackState>> {
  if (messageIds.length === 0) return new Map();
  const rows = await db.query<{ message_id: string; state: CallbackState }>(
    `select message_id, state from callback_deliveries where message_id = any($1::text::uuid[])`,
    [`{${messageIds.join(",")}}`],
  );
  return new Map(rows.map((r) => [r.message_id, r.state]));
}

// ---- delivery log --------------------------------------------------------------------------

export interface NewAttempt {
  bot_id: string;
  kind: "webhook" | "callback";
  update_id: number | null;
  message_id: string | null;
  url: string;
  status_code: number | null;
  latency_ms: number;
  error: string | null;
  attempted_at: string;
}

export async function insertAttempts(db: Queryable, attempts: NewAttempt[]): Promise<void> {
  if (attempts.length === 0) return;
  await db.query(
    `insert into delivery_attempts (bot_id, kind, update_id, message_id, url, status_code, latency_ms, error, attempted_at)
     select bot_id, kind, update_id, message_id, url, status_code, latency_ms, error, attempted_at
     from jsonb_to_recordset($1::text::jsonb) as x(bot_id uuid, kind text, update_id int8, message_id uuid, url text,
       status_code int4, latency_ms int4, error text, attempted_at timestamptz)`,
    [json(attempts)],
  );
}

export interface DbAttempt extends Omit<NewAttempt, "attempted_at"> {
  id: number;
  attempted_at: Date;
}

export async function listAttempts(db: Queryable, botId: string, limit: number): Promise<DbAttempt[]> {
  return db.query<DbAttempt>(
    `select id, bot_id, kind, update_id, message_id, url, status_code, latency_ms, error, attempted_at
     from delivery_attempts where bot_id = $1 order by id desc limit $2`,
    [botId, limit],
  );
}

/** Deletes attempts older than `before`, and beyond each bot's latest `keepPerBot`. */
export async function pruneAttempts(db: Queryable, before: Date, keepPerBot: number): Promise<void> {
  await db.query(`delete from delivery_attempts where attempted_at < $1`, [before]);
  await db.query(
    `delete from delivery_attempts d using (
       select id from (select id, row_number() over (partition by bot_id order by id desc) as rn from delivery_attempts) ranked where rn > $1
     ) beyond where d.id = beyond.id`,
    [keepPerBot],
  );
}

// ---- webhook delivery beyond the confirmed watermark (sql/007_webhook_delivered.sql) -------

export interface DbDeliveredRange {
  /** null when the bot has no rows. */
  lowest: number | null;
  highest: number | null;
}

/** The span of a bot's recorded deliveries: where a new holder must look before resending. */
export async function findDeliveredRange(db: Queryable, botId: string): Promise<DbDeliveredRange> {
  const rows = await db.query<DbDeliveredRange>(
    `select min(update_id)::int8 as lowest, max(update_id)::int8 as highest from webhook_delivered where bot_id = $1`,
    [botId],
  );
  const row = rows[0];
  return { lowest: row?.lowest == null ? null : Number(row.lowest), highest: row?.highest == null ? null : Number(row.highest) };
}

export interface DbDelivered {
  update_id: number;
}

/** The recorded deliveries of a bot with from <= update_id <= to (one read batch of its log). */
export async function listDelivered(db: Queryable, botId: string, from: number, to: number): Promise<number[]> {
  const rows = await db.query<DbDelivered>(
    `select update_id from webhook_delivered where bot_id = $1 and update_id between $2 and $3`,
    [botId, from, to],
  );
  return rows.map((r) => Number(r.update_id));
}

/**
 * Records deliveries and, in the same statement, deletes the bot's rows below `pruneBelow`
 * (a watermark already confirmed in the log; 0 deletes nothing).
 */
export async function recordDelivered(db: Queryable, botId: string, updateIds: number[], pruneBelow: number): Promise<void> {
  await db.query(
    `with pruned as (delete from webhook_delivered where bot_id = $1 and update_id < $3)
     insert into webhook_delivered (bot_id, update_id)
     select $1::uuid, unnest($2::text::int8[])
     on conflict do nothing`,
    [botId, `{${updateIds.join(",")}}`, pruneBelow],
  );
}
