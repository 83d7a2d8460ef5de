// The production bus: NATS core subjects on the process's shared connection. Core NATS is at
// most once, which is what the bus promises; what must survive goes through JetStream.
import type { NatsConnection, Subscription } from "nats";
import { AppError } from "../core/errors.ts";
import { DEFAULT_NATS_NAMES, type NatsNames } from "../core/subjects.ts";
import {
  type BusOptions,
  busClosed,
  checkSubject,
  defaultOnError,
  deliver,
  type EventBus,
  decodeEvents,
  encodeEvent,
  encodeEvents,
  type Unsubscribe,
} from "./bus.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function natsBus(nc: NatsConnection, options: BusOptions & { names?: NatsNames } = {}): EventBus {
  const onError = options.onError ?? defaultOnError;
  const names = options.names ?? DEFAULT_NATS_NAMES;
  /** Each live subscription and the function that ends it. */
  const subscriptions = new Map<Subscription, Unsubscribe>();
  let closed = false;

  return {
    async publish(subject, data) {
      if (closed) throw busClosed();
      checkSubject(subject, false);
      if (nc.isClosed()) throw new AppError("unavailable", "NATS connection is closed");
      // No flush per publish: one connection's messages reach the server, and each subscriber,
      // in the order published; waiting for a round trip would only add latency, and would
      // hang the caller while the connection is reconnecting.
      nc.publish(names.wire(subject), encoder.encode(encodeEvent(subject, data)));
    },

    async publishMany(subject, list) {
      if (closed) throw busClosed();
      checkSubject(subject, false);
      if (nc.isClosed()) throw new AppError("unavailable", "NATS connection is closed");
      for (const text of encodeEvents(subject, list)) nc.publish(names.wire(subject), encoder.encode(text));
    },

    subscribe(subject, handler) {
      if (closed) throw busClosed();
      checkSubject(subject, true);
      let active = true;
      const subscription = nc.subscribe(names.wire(subject), {
        callback: (err, msg) => {
          if (err) return onError(subject, err);
          if (!active) return;
          let list: unknown[];
          try {
            list = decodeEvents(decoder.decode(msg.data));
          } catch (decodeError) {
            return onError(names.unwire(msg.subject), decodeError);
          }
          // Checked per event: a handler may unsubscribe while a batch is being delivered.
          for (const data of list) if (active) deliver(handler, data, names.unwire(msg.subject), onError);
        },
      });
      const unsubscribe = () => {
        // Messages already buffered by the client must not reach a handler that unsubscribed.
        active = false;
        if (subscriptions.delete(subscription) && !nc.isClosed()) subscription.unsubscribe();
      };
      subscriptions.set(subscription, unsubscribe);
      return unsubscribe;
    },

    async flush() {
      if (closed || nc.isClosed()) return;
      // The server answers a PING after handling everything sent before it on this connection.
      await nc.flush();
    },

    async close() {
      closed = true;
      for (const unsubscribe of [...subscriptions.values()]) unsubscribe();
    },
  };
}
