// The in-process bus (embedded mode): the same contract as NATS core subjects, in one process.
import {
  type BusOptions,
  busClosed,
  checkSubject,
  defaultOnError,
  deliver,
  type EventBus,
  encodeEvent,
  type Handler,
  subjectMatches,
} from "./bus.ts";

interface Subscription {
  readonly pattern: string[];
  readonly handler: Handler;
  active: boolean;
}

export function memoryBus(options: BusOptions = {}): EventBus {
  const onError = options.onError ?? defaultOnError;
  const subscriptions = new Set<Subscription>();
  let closed = false;

  const bus: EventBus = {
    async publish(subject, data) {
      if (closed) throw busClosed();
      const tokens = checkSubject(subject, false);
      // Encode now, so an event that NATS would refuse fails here too, and later mutation of
      // `data` by the publisher cannot change what subscribers see.
      const text = encodeEvent(subject, data);
      for (const subscription of subscriptions) {
        if (!subjectMatches(subscription.pattern, tokens)) continue;
        // Microtasks run FIFO: one publisher's events arrive in order, and never inside publish().
        queueMicrotask(() => {
          if (subscription.active) deliver(subscription.handler, JSON.parse(text), subject, onError);
        });
      }
    },

    async publishMany(subject, list) {
      for (const data of list) await bus.publish(subject, data);
    },

    subscribe(subject, handler) {
      if (closed) throw busClosed();
      const subscription: Subscription = { pattern: checkSubject(subject, true), handler, active: true };
      subscriptions.add(subscription);
      return () => {
        subscription.active = false;
        subscriptions.delete(subscription);
      };
    },

    async flush() {
      // Subscriptions are in place as soon as subscribe() returns.
    },

    async close() {
      closed = true;
      for (const subscription of subscriptions) subscription.active = false;
      subscriptions.clear();
    },
  };
  return bus;
}
