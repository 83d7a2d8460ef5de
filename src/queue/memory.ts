// Embedded: one process, so "one consumer" is this process; the in-process bus carries the events.
import type { EventBus } from "../bus/bus.ts";
import type { PlatformEvent } from "../core/events.ts";
import { MESSAGE_CREATED_SUBJECTS } from "../core/subjects.ts";
import type { EventQueue } from "./queue.ts";

export function memoryQueue(bus: EventBus): EventQueue {
  return {
    async consumeIncoming(handler, options) {
      const unsubscribe = bus.subscribe(MESSAGE_CREATED_SUBJECTS, (data) => {
        handler(data as PlatformEvent).catch((err) => options.onError(err, false));
      });
      return { stop: async () => unsubscribe() };
    },
  };
}
