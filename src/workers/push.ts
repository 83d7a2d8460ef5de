// The push worker: turns incoming-message events into operator push notifications. The
// event queue (queue/) shares them between every `push` process, whichever backend it has.
import { PushActor, type PushDeps } from "../delivery/push.ts";
import type { PlatformEvent } from "../core/events.ts";
import type { Platform } from "../platform.ts";
import { loadVapidKeys } from "../delivery/vapid.ts";
import { listSubscribedMemberIds } from "../db/push.ts";

export const PUSH_CONSUMER = "push-worker";

export interface PushWorker {
  stop(): Promise<void>;
}

export interface PushWorkerOptions {
  /** Tests use a consumer of their own (removed on stop) so parallel runs never share events. */
  consumerName?: string;
}

export async function startPushWorker(platform: Platform, options: PushWorkerOptions = {}): Promise<PushWorker> {
  const consumerName = options.consumerName ?? PUSH_CONSUMER;
  const { config, db, logger } = platform;
  const deps: PushDeps = {
    db,
    logger,
    vapid: await loadVapidKeys(db),
    subject: config.pushContact,
    policy: { allowPrivate: config.allowPrivateWebhooks },
    publicUrl: config.publicUrl,
  };
  // Events of one bot arriving while its look-up runs share that look-up: a busy bot costs a
  // query per burst, not per message, and nobody is told late (nothing is kept after it answers).
  const lookups = new Map<string, Promise<string[]>>();
  const subscribedMembers = (botId: string): Promise<string[]> => {
    let ids = lookups.get(botId);
    if (!ids) {
      ids = listSubscribedMemberIds(db, botId).finally(() => lookups.delete(botId));
      lookups.set(botId, ids);
    }
    return ids;
  };
  const handle = async (event: PlatformEvent): Promise<void> => {
    if (event.message?.direction !== "in") return;
    // Every member of the bot (owner and operators) is notified on their own subscriptions.
    const members = await subscribedMembers(event.bot_id);
    await Promise.all(members.map((userId) =>
      platform.actors.actorOf("push", userId, () => new PushActor(deps, userId)).ask((a) => a.notify(event))));
  };

  return platform.queue.consumeIncoming(handle, {
    name: consumerName,
    removeOnStop: options.consumerName !== undefined,
    onError: (err, redelivered) => logger.warn({ err }, redelivered ? "push failed; will be redelivered" : "push failed"),
  });
}
