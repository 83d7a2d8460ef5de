import type { Queryable } from "../db/driver.ts";
import { findSetting, getOrCreateSetting } from "../db/push.ts";

export interface VapidKeys {
  publicKey: string;
  privateKey: string;
}

const VAPID_SETTING = "vapid_keys";

/**
 * The VAPID key pair identifies us to push services. Browsers subscribe with the public
 * key, so it must stay the same across restarts and processes: generated once, kept in
 * the database every process shares.
 */
export async function loadVapidKeys(db: Queryable): Promise<VapidKeys> {
  // web-push is loaded only to make the pair: every later start reads it without the library.
  const stored = await findSetting<VapidKeys>(db, VAPID_SETTING);
  if (stored) return stored;
  const { default: webPush } = await import("web-push");
  return getOrCreateSetting<VapidKeys>(db, VAPID_SETTING, webPush.generateVAPIDKeys());
}
