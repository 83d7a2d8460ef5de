import type { Queryable } from "./driver.ts";
import { json } from "./driver.ts";

export interface DbPushSubscription {
  id: string;
  user_id: string;
  endpoint: string;
  p256dh: string;
  auth: string;
  consecutive_failures: number;
  created_at: Date;
}

const COLUMNS = `id, user_id, endpoint, p256dh, auth, consecutive_failures, created_at`;

/** The stored value for `key`, if any. */
export async function findSetting<T>(db: Queryable, key: string): Promise<T | undefined> {
  const rows = await db.query<{ value: T }>(`select value from app_settings where key = $1`, [key]);
  return rows[0]?.value;
}

/** Returns the stored value for `key`, inserting `candidate` first when there is none. */
export async function getOrCreateSetting<T>(db: Queryable, key: string, candidate: T): Promise<T> {
  await db.query(`insert into app_settings (key, value) values ($1, $2::text::jsonb) on conflict (key) do nothing`, [key, json(candidate)]);
  const rows = await db.query<{ value: T }>(`select value from app_settings where key = $1`, [key]);
  return rows[0]!.value;
}

/** A browser re-subscribing (same endpoint) moves the subscription to the current user. */
export async function upsertPushSubscription(
  db: Queryable, userId: string, endpoint: string, p256dh: string, auth: string,
): Promise<DbPushSubscription> {
  const rows = await db.query<DbPushSubscription>(
    `insert into push_subscriptions (user_id, endpoint, p256dh, auth) values ($1, $2, $3, $4)
     on conflict (endpoint) do update set user_id = excluded.user_id, p256dh = excluded.p256dh, auth = excluded.auth,
       consecutive_failures = 0
     returning ${COLUMNS}`,
    [userId, endpoint, p256dh, auth],
  );
  return rows[0]!;
}

export async function deletePushSubscription(db: Queryable, userId: string, endpoint: string): Promise<boolean> {
  const rows = await db.query(`delete from push_subscriptions where user_id = $1 and endpoint = $2 returning id`, [userId, endpoint]);
  return rows.length > 0;
}

export async function listPushSubscriptions(db: Queryable, userId: string): Promise<DbPushSubscription[]> {
  return db.query<DbPushSubscription>(`select ${COLUMNS} from push_subscriptions where user_id = $1 order by created_at`, [userId]);
}

/** Each bot's members with at least one push subscription: the only ones its new messages concern. */
export async function listSubscribedMembersOfBots(db: Queryable, botIds: string[]): Promise<Map<string, string[]>> {
  const rows = await db.query<{ bot_id: string; user_id: string }>(
    `select m.bot_id, m.user_id from bot_members m where m.bot_id = any($1::uuid[])
       and exists (select 1 from push_subscriptions s where s.user_id = m.user_id)`,
    [botIds],
  );
  const members = new Map<string, string[]>(botIds.map((id) => [id, []]));
  for (const r of rows) members.get(r.bot_id)?.push(r.user_id);
  return members;
}

export async function removePushSubscription(db: Queryable, id: string): Promise<void> {
  await db.query(`delete from push_subscriptions where id = $1`, [id]);
}

export async function recordPushSuccess(db: Queryable, id: string): Promise<void> {
  await db.query(`update push_subscriptions set consecutive_failures = 0, last_success_at = now() where id = $1`, [id]);
}

/** Returns the failure count after this one. */
export async function recordPushFailure(db: Queryable, id: string): Promise<number> {
  const rows = await db.query<{ consecutive_failures: number }>(
    `update push_subscriptions set consecutive_failures = consecutive_failures + 1 where id = $1 returning consecutive_failures`,
    [id],
  );
  return rows[0]?.consecutive_failures ?? 0;
}
