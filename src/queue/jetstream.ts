// Production: the stream EVENTS keeps incoming-message events for an hour, and one durable
// consumer per name shares them between every process that consumes under that name; an
// event is redelivered if the process holding it dies (or fails) before acknowledging it.
import { AckPolicy, DeliverPolicy, RetentionPolicy, StorageType, type ConsumerMessages, type JetStreamManager, type NatsConnection, type StreamConfig } from "nats";
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
/**
 * Why: processes started together create EVENTS at once, and nats-server 2.9 refuses the later
 * creator (10065, subjects overlap) until the first has made it; 20 × 250 ms outlasts that, and a
 * stream that really overlaps ours still fails start-up, 5 s later.
 */
const STREAM_CREATE_ATTEMPTS = 20;
const STREAM_CREATE_RETRY_MS = 250;

/** Creates the stream, or brings an existing one to this configuration. */
async function ensureStream(jsm: JetStreamManager, stream: Partial<StreamConfig> & { name: string }): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await jsm.streams.add(stream);
      return;
    } catch (err) {
      if (jetStreamErrorCode(err) !== JS_STREAM_SUBJECTS_OVERLAP) {
        await jsm.streams.update(stream.name, stream);
        return;
      }
      if (attempt === STREAM_CREATE_ATTEMPTS) throw err;
      await new Promise((resolve) => setTimeout(resolve, STREAM_CREATE_RETRY_MS));
    }
  }
}

export function jetStreamQueue(nats: NatsConnection, names: NatsNames = DEFAULT_NATS_NAMES, replicas = 1): EventQueue {
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
      await ensureStream(jsm, stream);
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
