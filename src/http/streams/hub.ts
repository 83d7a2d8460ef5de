// One bus subscription per subject per process, shared by every open stream that needs
// it: a hundred visitors of one site's widget cost one NATS subscription, not a hundred.
import { defaultOnError, type EventBus, type Handler, type Unsubscribe } from "../../bus/bus.ts";

interface Shared {
  handlers: Set<Handler>;
  unsubscribe: Unsubscribe;
}

const hubs = new WeakMap<EventBus, Map<string, Shared>>();

function hubOf(bus: EventBus): Map<string, Shared> {
  let hub = hubs.get(bus);
  if (!hub) hubs.set(bus, (hub = new Map()));
  return hub;
}

/**
 * Adds `handler` to the shared subscription of `subject` and resolves once publishes from
 * any process reach it (bus.flush). The returned function removes it; the last one out
 * ends the bus subscription.
 */
export async function subscribeShared(
  bus: EventBus, subject: string, handler: Handler, onError: (subject: string, err: unknown) => void = defaultOnError,
): Promise<Unsubscribe> {
  const hub = hubOf(bus);
  let shared = hub.get(subject);
  if (!shared) {
    const handlers = new Set<Handler>();
    const unsubscribe = bus.subscribe(subject, (data, concrete) => {
      // One stream's failure must not keep the event from the others.
      for (const h of [...handlers]) {
        try {
          h(data, concrete);
        } catch (err) {
          onError(subject, err);
        }
      }
    });
    shared = { handlers, unsubscribe };
    hub.set(subject, shared);
  }
  shared.handlers.add(handler);
  const entry = shared;
  let done = false;
  const leave = () => {
    if (done) return;
    done = true;
    entry.handlers.delete(handler);
    if (entry.handlers.size === 0 && hub.get(subject) === entry) {
      hub.delete(subject);
      entry.unsubscribe();
    }
  };
  try {
    await bus.flush();
  } catch (err) {
    leave();
    throw err;
  }
  return leave;
}

/** Handlers currently attached through the hub (tests check streams clean up after themselves). */
export function sharedHandlerCount(bus: EventBus): number {
  let n = 0;
  for (const shared of hubs.get(bus)?.values() ?? []) n += shared.handlers.size;
  return n;
}
