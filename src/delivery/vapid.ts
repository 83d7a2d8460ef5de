import webPush from "web-push";
import type { Queryable } from "../db/driver.ts";
import { getOrCreateSetting } from "../db/push.ts";

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
export function loadVapidKeys(db: Queryable): Promise<VapidKeys> {
  return getOrCreateSetting<VapidKeys>(db, VAPID_SETTING, webPush.generateVAPIDKeys());
}
