// Production: the stream EVENTS keeps incoming-message events for an hour, and one durable
// consumer per name shares them between every process that consumes under that name; an
// event is redelivered if the process holding it dies (or fails) before acknowledging it.
import { AckPolicy, DeliverPolicy, RetentionPolicy, StorageType, type ConsumerMessages, type NatsConnection } from "nats";
import type { PlatformEvent } from "../core/events.ts";
import { JS_STREAM_SUBJECTS_OVERLAP, jetStreamErrorCode } from "../core/jetstream-errors.ts";
import { DEFAULT_NATS_NAMES, MESSAGE_CREATED_SUBJECTS, type NatsNames } from "../core/subjects.ts";
import type { EventQueue } from "./queue.ts";

/** A notification about a message older than this is noise, not news. */
export const EVENTS_MAX_AGE_MS = 3600_000;
/** How long a consumer may take with one event before another process gets it. */
export const PUSH_ACK_WAIT_MS = 60_000;
/** Give up on an event after this many deliveries (a poisoned event must not loop forever). */
export const PUSH_MAX_DELIVER = 5;
/** Events a process holds at once; bounds memory and parallel work. */
export const PUSH_IN_FLIGHT = 64;
/** Runs a start-up step again while JetStream settles (src/nats.ts onceJetStreamSettles, handed in by the platform). */
export type SettleRetry = <T>(step: () => Promise<T>) => Promise<T>;

export function jetStreamQueue(nats: NatsConnection, settle: SettleRetry, names: NatsNames = DEFAULT_NATS_NAMES, replicas = 1): EventQueue {
  const EVENTS_STREAM = names.eventsStream;
  const subjects = names.wire(MESSAGE_CREATED_SUBJECTS);
  return {
    async consumeIncoming(handle, options) {
      const consumerName = options.name;
      const jsm = await nats.jetstreamManager();
      const stream = {
        name: EVENTS_STREAM,
        // Only what is consumed: other events (inbox updates, typing) are not stored.
        subjects: [subjects],
        retention: RetentionPolicy.Limits,
        storage: StorageType.File,
        max_age: EVENTS_MAX_AGE_MS * 1_000_000,
        num_replicas: replicas,
      };
      // Created, or brought to this configuration. Another process creating it at this moment
      // makes nats-server 2.9 refuse ours (10065, subjects overlap) and the update find nothing:
      // that refusal goes to `settle`, which asks again as for every other start-up step.
      await settle(() => jsm.streams.add(stream).catch((err: unknown) => {
        if (jetStreamErrorCode(err) === JS_STREAM_SUBJECTS_OVERLAP) throw err;
        return jsm.streams.update(EVENTS_STREAM, stream);
      }));
      await jsm.consumers
        .add(EVENTS_STREAM, {
          durable_name: consumerName,
          filter_subject: subjects,
          ack_policy: AckPolicy.Explicit,
          deliver_policy: DeliverPolicy.New,
          ack_wait: PUSH_ACK_WAIT_MS * 1_000_000,
          max_deliver: PUSH_MAX_DELIVER,
        })
        .catch((err) => {
          // Another process created it first: the same settings, nothing to do.
          if (!String(err).includes("already")) throw err;
        });
      const consumer = await nats.jetstream().consumers.get(EVENTS_STREAM, consumerName);
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
              options.onError(err, true);
              m.nak();
            },
          );
        }
      })();
      return {
        async stop() {
          await messages.close().catch(() => undefined);
          await loop.catch(() => undefined);
          if (options.removeOnStop) await jsm.consumers.delete(EVENTS_STREAM, consumerName).catch(() => undefined);
        },
      };
    },
  };
}
