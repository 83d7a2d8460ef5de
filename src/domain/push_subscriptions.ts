// A user's browsers subscribed to operator push notifications (the push worker sends them).
import { deletePushSubscription, listPushSubscriptions, upsertPushSubscription, type DbPushSubscription } from "../db/push.ts";
import { badRequest, notFound } from "../core/errors.ts";
import type { Config } from "../config.ts";
import type { Db } from "../db/driver.ts";
import { loadVapidKeys } from "../delivery/vapid.ts";
import { checkTarget, UrlRefused } from "../delivery/ssrf.ts";

/** http/push/model.ts declares the same shapes. */
export interface PushSubscription {
  id: string;
  endpoint: string;
  created_at: string;
}
export interface PushSubscriptionRequest {
  endpoint: string;
  keys: { p256dh: string; auth: string };
}

type PushDeps = { db: Db; config: Pick<Config, "allowPrivateWebhooks"> };

/** An uncompressed P-256 point and a Web Push auth secret (RFC 8291). */
const P256DH_BYTES = 65;
const AUTH_BYTES = 16;

const toSubscription = (row: DbPushSubscription): PushSubscription => ({
  id: row.id, endpoint: row.endpoint, created_at: row.created_at.toISOString(),
});

export async function publicKey(deps: PushDeps): Promise<{ public_key: string }> {
  return { public_key: (await loadVapidKeys(deps.db)).publicKey };
}

export async function subscribe(deps: PushDeps, userId: string, body: PushSubscriptionRequest): Promise<PushSubscription> {
  if (Buffer.from(body.keys.p256dh, "base64url").length !== P256DH_BYTES) throw badRequest(`keys.p256dh: must be ${P256DH_BYTES} bytes`);
  if (Buffer.from(body.keys.auth, "base64url").length !== AUTH_BYTES) throw badRequest(`keys.auth: must be ${AUTH_BYTES} bytes`);
  try {
    await checkTarget(body.endpoint, { allowPrivate: deps.config.allowPrivateWebhooks });
  } catch (err) {
    if (err instanceof UrlRefused) throw badRequest(`endpoint: ${err.message}`);
    throw err;
  }
  return toSubscription(await upsertPushSubscription(deps.db, userId, body.endpoint, body.keys.p256dh, body.keys.auth));
}

export async function unsubscribe(deps: PushDeps, userId: string, endpoint: string): Promise<true> {
  if (!(await deletePushSubscription(deps.db, userId, endpoint))) throw notFound("push subscription");
  return true;
}

export async function subscriptions(deps: PushDeps, userId: string): Promise<PushSubscription[]> {
  return (await listPushSubscriptions(deps.db, userId)).map(toSubscription);
}
