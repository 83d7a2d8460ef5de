// The push worker: turns incoming-message events into operator push notifications.
// Production: a durable JetStream consumer on the EVENTS stream, shared by every `push`
// process (each event goes to one of them, and is redelivered if that one dies before
// acking). Embedded: a subscription on the in-process bus.
import { AckPolicy, DeliverPolicy, RetentionPolicy, StorageType, type ConsumerMessages } from "nats";
import { PushActor, type PushDeps } from "../delivery/push.ts";
import type { PlatformEvent } from "../core/events.ts";
import type { Platform } from "../platform.ts";
import { loadVapidKeys } from "../delivery/vapid.ts";
import { MESSAGE_CREATED_SUBJECTS } from "../core/subjects.ts";

export const EVENTS_STREAM = "EVENTS";
/** A notification about a message older than this is noise, not news. */
export const EVENTS_MAX_AGE_MS = 3600_000;
export const PUSH_CONSUMER = "push-worker";
/** How long a push process may take with one event before another process gets it. */
export const PUSH_ACK_WAIT_MS = 60_000;
/** Give up on an event after this many deliveries (a poisoned event must not loop forever). */
export const PUSH_MAX_DELIVER = 5;
/** Events a process holds at once; bounds memory and parallel pushes. */
export const PUSH_IN_FLIGHT = 64;


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
  const handle = async (event: PlatformEvent): Promise<void> => {
    if (event.message?.direction !== "in") return;
    await platform.actors.actorOf("push", event.owner_id, () => new PushActor(deps, event.owner_id)).ask((a) => a.notify(event));
  };

  if (!platform.nats) {
    const unsubscribe = platform.bus.subscribe(MESSAGE_CREATED_SUBJECTS, (data) => {
      handle(data as PlatformEvent).catch((err) => logger.warn({ err }, "push failed"));
    });
    return { stop: async () => unsubscribe() };
  }

  const jsm = await platform.nats.jetstreamManager();
  const stream = {
    name: EVENTS_STREAM,
    // Only what the push worker reads: other events (inbox updates, typing) are not stored.
    subjects: [MESSAGE_CREATED_SUBJECTS],
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    max_age: EVENTS_MAX_AGE_MS * 1_000_000,
  };
  await jsm.streams.add(stream).catch(async () => jsm.streams.update(EVENTS_STREAM, stream));
  await jsm.consumers
    .add(EVENTS_STREAM, {
      durable_name: consumerName,
      filter_subject: MESSAGE_CREATED_SUBJECTS,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.New,
      ack_wait: PUSH_ACK_WAIT_MS * 1_000_000,
      max_deliver: PUSH_MAX_DELIVER,
    })
    .catch((err) => {
      // Another push process created it first: the same settings, nothing to do.
      if (!String(err).includes("already")) throw err;
    });
  const consumer = await platform.nats.jetstream().consumers.get(EVENTS_STREAM, consumerName);
  const messages: ConsumerMessages = await consumer.consume({ max_messages: PUSH_IN_FLIGHT });
  const loop = (async () => {
    for await (const m of messages) {
      let event: PlatformEvent;
      try {
        event = m.json<PlatformEvent>();
      } catch {
        m.term();
        continue;
      }
      handle(event).then(
        () => m.ack(),
        (err) => {
          logger.warn({ err }, "push failed; will be redelivered");
          m.nak();
        },
      );
    }
  })();
  return {
    async stop() {
      await messages.close().catch(() => undefined);
      await loop.catch(() => undefined);
      if (options.consumerName) await jsm.consumers.delete(EVENTS_STREAM, consumerName).catch(() => undefined);
    },
  };
}
