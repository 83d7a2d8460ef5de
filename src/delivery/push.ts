// PushActor: one per operator (user). Turns that user's incoming-message events into Web
// Push notifications on each of their subscribed browsers, one event at a time so a
// burst of messages arrives in order and never floods a push service in parallel.
import type { Db, Queryable } from "../db/driver.ts";
import { listPushSubscriptions, listSubscribedMembersOfBots, recordPushFailure, recordPushSuccess, removePushSubscription } from "../db/push.ts";
import type { PlatformEvent } from "../core/events.ts";
import type { Logger } from "../logger.ts";
import { sendPush, type PushOutcome, type PushPayload } from "./webpush.ts";
import { loadVapidKeys, type VapidKeys } from "./vapid.ts";
import type { ActorSystem } from "../actors/system.ts";
import type { Consumer, EventQueue } from "../queue/queue.ts";
import type { UrlPolicy } from "./ssrf.ts";

/** A lock-screen line; the inbox has the rest. */
export const PUSH_BODY_MAX_LENGTH = 200;
/** A subscription failing this many times in a row (not "gone", just failing) is dropped. */
export const MAX_CONSECUTIVE_FAILURES = 20;

export interface PushDeps {
  db: Db;
  logger: Logger;
  vapid: VapidKeys;
  subject: string;
  policy: UrlPolicy;
  publicUrl: string;
}

function pushPayload(event: PlatformEvent, publicUrl: string): PushPayload {
  const contact = event.conversation.contact;
  const who = contact?.name || [contact?.first_name, contact?.last_name].filter(Boolean).join(" ") || contact?.email || "Visitor";
  const text = event.message?.text ?? "";
  // A private note reaches only the members it mentions: its author is the news.
  const author = event.message?.private ? String(event.message.metadata.operator_name ?? "A colleague") : null;
  return {
    title: author ? `${author} mentioned you · ${who}` : `${who} · ${event.conversation.channel}`,
    body: text.length > PUSH_BODY_MAX_LENGTH ? `${text.slice(0, PUSH_BODY_MAX_LENGTH - 1)}…` : text,
    conversation_id: event.conversation.id,
    bot_id: event.bot_id,
    url: `${publicUrl}/#/inbox/${event.conversation.id}`,
  };
}

export class PushActor {
  constructor(
    private readonly deps: PushDeps,
    readonly userId: string,
  ) {}

  /** Returns the outcome per subscription (tests and logs). */
  async notify(event: PlatformEvent): Promise<PushOutcome[]> {
    const { db, logger } = this.deps;
    const payload = pushPayload(event, this.deps.publicUrl);
    const outcomes: PushOutcome[] = [];
    for (const sub of await listPushSubscriptions(db, this.userId)) {
      const result = await sendPush(sub, payload, this.deps.vapid, this.deps.subject, this.deps.policy);
      outcomes.push(result.outcome);
      if (result.outcome === "delivered") {
        await recordPushSuccess(db, sub.id);
      } else if (result.outcome === "gone") {
        await removePushSubscription(db, sub.id);
      } else if ((await recordPushFailure(db, sub.id)) >= MAX_CONSECUTIVE_FAILURES) {
        await removePushSubscription(db, sub.id);
      }
      if (result.outcome !== "delivered") logger.info({ user: this.userId, status: result.status, error: result.error }, "push not delivered");
    }
    return outcomes;
  }
}

/**
 * Each bot's subscribed members, looked up when its events arrive. Events of one bot arriving
 * while its look-up runs share it: a busy bot costs a query per burst, not per message. The
 * bots asked for in one turn share one query: a shared intake transaction announces ten bots'
 * messages at once (ten queries each time, embedded, on the one PGlite connection). Nothing is
 * kept after it answers, so nobody is told late.
 */
export function subscribedMembersLookup(db: Queryable): (botId: string) => Promise<string[]> {
  const running = new Map<string, Promise<string[]>>();
  let next: { botIds: Set<string>; members: Promise<Map<string, string[]>> } | undefined;
  return (botId) => {
    const shared = running.get(botId);
    if (shared) return shared;
    if (!next) {
      const botIds = new Set<string>();
      const members = new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
        next = undefined;
        return listSubscribedMembersOfBots(db, [...botIds]);
      });
      next = { botIds, members };
    }
    next.botIds.add(botId);
    const ids: Promise<string[]> = next.members.then((members) => members.get(botId) ?? []).finally(() => {
      if (running.get(botId) === ids) running.delete(botId);
    });
    running.set(botId, ids);
    return ids;
  };
}

/** What the push consumer runs on; the composition (services.ts) hands it in. */
export interface PushConsumerDeps extends Omit<PushDeps, "vapid"> {
  actors: ActorSystem;
  queue: EventQueue;
}

export interface PushConsumerOptions {
  /** Names the shared durable consumer (every push process uses the same one). */
  name: string;
  /** Tests use a consumer of their own, removed on stop, so parallel runs never share events. */
  removeOnStop: boolean;
}

/** Turns incoming-message events into push notifications to every subscribed member of the bot. */
export async function consumeForPush(deps: PushConsumerDeps, options: PushConsumerOptions): Promise<Consumer> {
  const { db, logger } = deps;
  const actorDeps: PushDeps = { ...deps, vapid: await loadVapidKeys(db) };
  const subscribedMembers = subscribedMembersLookup(db);
  const handle = async (event: PlatformEvent): Promise<void> => {
    if (event.message?.private) return notifyMentioned(event);
    if (event.message?.direction !== "in") return;
    // Every member of the bot (owner and operators) is notified on their own subscriptions.
    const members = await subscribedMembers(event.bot_id);
    await Promise.all(members.map((userId) =>
      deps.actors.actorOf("push", userId, () => new PushActor(actorDeps, userId)).ask((a) => a.notify(event))));
  };
  /** A private note: only the members it mentions who are still members (and subscribed). */
  const notifyMentioned = async (event: PlatformEvent): Promise<void> => {
    const mentions = event.message?.metadata.mentions;
    if (!Array.isArray(mentions) || mentions.length === 0) return;
    const members = new Set(await subscribedMembers(event.bot_id));
    const targets = mentions.filter((id): id is string => typeof id === "string" && members.has(id));
    await Promise.all(targets.map((userId) =>
      deps.actors.actorOf("push", userId, () => new PushActor(actorDeps, userId)).ask((a) => a.notify(event))));
  };
  return deps.queue.consumeIncoming(handle, {
    ...options,
    onError: (err, redelivered) => logger.warn({ err }, redelivered ? "push failed; will be redelivered" : "push failed"),
  });
}
