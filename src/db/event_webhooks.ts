// SQL for event webhooks and their delivery log (sql/230_event_webhooks_api_tokens.sql).
import type { Queryable } from "./driver.ts";

export interface DbEventWebhook {
  id: string;
  bot_id: string;
  url: string;
  events: string[];
  secret_sealed: string;
  created_at: Date;
}

const HOOK_COLUMNS = `id, bot_id, url, events, secret_sealed, created_at`;
const textArray = (values: readonly string[]) => `{${values.join(",")}}`;

export async function insertEventWebhook(db: Queryable, botId: string, url: string, events: readonly string[], secretSealed: string): Promise<DbEventWebhook> {
  const rows = await db.query<DbEventWebhook>(
    `insert into event_webhooks (bot_id, url, events, secret_sealed) values ($1, $2, $3::text::text[], $4) returning ${HOOK_COLUMNS}`,
    [botId, url, textArray(events), secretSealed],
  );
  return rows[0]!;
}

export async function countEventWebhooks(db: Queryable, botId: string): Promise<number> {
  const rows = await db.query<{ n: number }>(`select count(*)::int as n from event_webhooks where bot_id = $1`, [botId]);
  return rows[0]!.n;
}

export async function listEventWebhooks(db: Queryable, botId: string): Promise<DbEventWebhook[]> {
  return db.query<DbEventWebhook>(`select ${HOOK_COLUMNS} from event_webhooks where bot_id = $1 order by created_at, id`, [botId]);
}

export async function findEventWebhook(db: Queryable, botId: string, hookId: string): Promise<DbEventWebhook | undefined> {
  const rows = await db.query<DbEventWebhook>(`select ${HOOK_COLUMNS} from event_webhooks where bot_id = $1 and id = $2`, [botId, hookId]);
  return rows[0];
}

export async function deleteEventWebhook(db: Queryable, botId: string, hookId: string): Promise<boolean> {
  return (await db.query(`delete from event_webhooks where bot_id = $1 and id = $2 returning id`, [botId, hookId])).length > 0;
}

export async function listBotsWithEventWebhooks(db: Queryable): Promise<string[]> {
  return (await db.query<{ bot_id: string }>(`select distinct bot_id from event_webhooks`)).map((r) => r.bot_id);
}

export interface NewEventDelivery {
  hook_id: string;
  bot_id: string;
  event_key: string;
  event: string;
  order_key: string;
  body: string;
}

/** Queues one event for one hook; idempotent per (hook, event_key), so every worker may offer it. Returns whether it was new. */
export async function enqueueEventDelivery(db: Queryable, d: NewEventDelivery): Promise<boolean> {
  const rows = await db.query(
    `insert into event_deliveries (hook_id, bot_id, event_key, event, order_key, body) values ($1, $2, $3, $4, $5, $6)
     on conflict (hook_id, event_key) do nothing returning id`,
    [d.hook_id, d.bot_id, d.event_key, d.event, d.order_key, d.body],
  );
  return rows.length > 0;
}

/**
 * Records the contact's fingerprint as the hook's last view of it; answers whether it changed
 * from a view the hook already had (a first sighting is not a change).
 */
export async function contactChanged(db: Queryable, hookId: string, contactId: string, fingerprint: string): Promise<boolean> {
  const before = await db.query<{ fingerprint: string }>(
    `select fingerprint from event_hook_contacts where hook_id = $1 and contact_id = $2`, [hookId, contactId]);
  if (before[0]?.fingerprint === fingerprint) return false;
  await db.query(
    `insert into event_hook_contacts (hook_id, contact_id, fingerprint) values ($1, $2, $3)
     on conflict (hook_id, contact_id) do update set fingerprint = excluded.fingerprint`,
    [hookId, contactId, fingerprint],
  );
  return before.length > 0;
}

export async function listBotsWithPendingEvents(db: Queryable): Promise<string[]> {
  return (await db.query<{ bot_id: string }>(`select distinct bot_id from event_deliveries where state = 'pending'`)).map((r) => r.bot_id);
}

export interface PendingEventDelivery {
  id: string;
  hook_id: string;
  order_key: string;
  body: string;
  attempts: number;
  next_attempt_at: Date;
  queued_at: Date;
  url: string;
  secret_sealed: string;
}

/** A bot's pending deliveries in queue order (per hook and conversation, the head goes first). */
export async function listPendingEventDeliveries(db: Queryable, botId: string, limit: number): Promise<PendingEventDelivery[]> {
  return db.query<PendingEventDelivery>(
    `select d.id, d.hook_id, d.order_key, d.body, d.attempts, d.next_attempt_at, d.queued_at, h.url, h.secret_sealed
     from event_deliveries d join event_webhooks h on h.id = d.hook_id
     where d.bot_id = $1 and d.state = 'pending'
     order by d.seq
     limit $2`,
    [botId, limit],
  );
}

export async function finishEventDelivery(
  db: Queryable, id: string, state: "delivered" | "failed", status: number | null, error: string | null, attempted: boolean,
): Promise<void> {
  await db.query(
    `update event_deliveries set state = $2, attempts = attempts + $5::int, last_status = coalesce($3, last_status), last_error = $4,
       finished_at = now(), last_attempt_at = case when $5::int > 0 then now() else last_attempt_at end
     where id = $1 and state = 'pending'`,
    [id, state, status, error, attempted ? 1 : 0],
  );
}

export async function retryEventDeliveryLater(db: Queryable, id: string, nextAt: Date, status: number | null, error: string): Promise<void> {
  await db.query(
    `update event_deliveries set attempts = attempts + 1, next_attempt_at = $2, last_status = $3, last_error = $4, last_attempt_at = now()
     where id = $1 and state = 'pending'`,
    [id, nextAt, status, error],
  );
}

export interface DbEventDelivery {
  id: string;
  hook_id: string;
  event: string;
  event_key: string;
  body: string;
  state: "pending" | "delivered" | "failed";
  attempts: number;
  last_status: number | null;
  last_error: string | null;
  next_attempt_at: Date;
  created_at: Date;
  last_attempt_at: Date | null;
  finished_at: Date | null;
}

const DELIVERY_COLUMNS = `id, hook_id, event, event_key, body, state, attempts, last_status, last_error, next_attempt_at, created_at, last_attempt_at, finished_at`;

export async function listEventDeliveries(db: Queryable, hookId: string, limit: number): Promise<DbEventDelivery[]> {
  return db.query<DbEventDelivery>(
    `select ${DELIVERY_COLUMNS} from event_deliveries where hook_id = $1 order by created_at desc, seq desc limit $2`, [hookId, limit]);
}

/** Queues a delivery again, whatever its state; it keeps its place in its conversation's order. */
export async function requeueEventDelivery(db: Queryable, hookId: string, id: string): Promise<DbEventDelivery | undefined> {
  const rows = await db.query<DbEventDelivery>(
    `update event_deliveries set state = 'pending', next_attempt_at = now(), queued_at = now(), finished_at = null
     where hook_id = $1 and id = $2 returning ${DELIVERY_COLUMNS}`,
    [hookId, id],
  );
  return rows[0];
}
