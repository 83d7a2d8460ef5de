// Live feeds (the inbox's and a widget chat's): what one yields, how many one caller may hold
// open, and the bus subscriptions they share. The HTTP layer writes a feed's events as
// Server-Sent Events; nothing here knows HTTP.
import { AppError } from "../core/errors.ts";
import { defaultOnError, type EventBus, type Handler, type Unsubscribe } from "../bus/bus.ts";

/** One event of a feed: its name, its resume cursor (none for events that do not move it) and its data. */
export interface FeedEvent<Name extends string = string, Data = unknown> {
  event: Name;
  id?: string | number;
  data: Data;
}

/** Where a feed sends its events; closing it ends the feed. */
export interface FeedSink<E extends FeedEvent = FeedEvent> {
  send(event: E): void;
  readonly closed: boolean;
  close(): void;
}

/** A feed ready to run: started once its transport is open, stopped by its cleanup or on drain. */
export interface Feed<E extends FeedEvent = FeedEvent> {
  /** Aborted when the process drains: the feed ends and the client reconnects elsewhere. */
  stopping: AbortSignal;
  /** Subscribes, replays what the client missed and goes live; resolves to the feed's cleanup. */
  start(sink: FeedSink<E>): Promise<() => void>;
  onError(err: unknown): void;
  /** Runs exactly once when the feed ends, however it ends (frees the caller's slot). */
  onClose?(): void;
}

// One bus subscription per subject per process, shared by every open feed that needs
// it: a hundred visitors of one site's widget cost one NATS subscription, not a hundred.

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

// Open feeds hold a socket, a subscription and a heartbeat timer each; without a cap one
// user (or one client address, for the public widget feed) could hold thousands.
/** A cap is lifted as soon as one of the caller's streams closes; a short wait is the honest hint. */
const STREAM_CAP_RETRY_AFTER_SECONDS = 5;

export class OpenStreams {
  private readonly open = new Map<string, number>();

  constructor(
    private readonly limit: number,
    private readonly who: string,
  ) {}

  /** Takes a slot for `key` or throws 429; the returned release frees it once, however often it is called. */
  reserve(key: string): () => void {
    const count = this.open.get(key) ?? 0;
    if (count >= this.limit) {
      throw new AppError("rate_limited", `too many open streams: at most ${this.limit} per ${this.who}`, STREAM_CAP_RETRY_AFTER_SECONDS);
    }
    this.open.set(key, count + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.open.get(key) ?? 1) - 1;
      if (left <= 0) this.open.delete(key);
      else this.open.set(key, left);
    };
  }

  count(key: string): number {
    return this.open.get(key) ?? 0;
  }
}
