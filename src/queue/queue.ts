// The work queue: events that must each be handled by ONE process and outlive the death of
// the process holding them (incoming messages → push notifications). Two implementations
// with one contract: memory.ts (embedded: a subscription on the in-process bus) and
// jetstream.ts (production: one durable JetStream consumer shared by every process).
import type { PlatformEvent } from "../core/events.ts";

/** Resolves: the event is done. Rejects: JetStream redelivers it (to any process); memory drops it. */
export type EventHandler = (event: PlatformEvent) => Promise<void>;

export interface ConsumeOptions {
  /** Consumers of one name share the events (each goes to one of them). */
  name: string;
  /** Remove the consumer on stop (tests use their own, so parallel runs never share events). */
  removeOnStop?: boolean;
  /** Where a failed handler is reported. */
  onError(err: unknown, redelivered: boolean): void;
}

export interface Consumer {
  stop(): Promise<void>;
}

export interface EventQueue {
  /** New incoming-message events (events.*.message_created) from now on, each to one consumer of the name. */
  consumeIncoming(handler: EventHandler, options: ConsumeOptions): Promise<Consumer>;
}
