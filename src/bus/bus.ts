// The event bus: fire-and-forget notifications (inbox live view, widget live replies, waking
// long polls). Two implementations with one contract: memory.ts (one process, embedded mode)
// and nats.ts (NATS core subjects, production). Durable delivery is NOT the bus's job: the
// update log and JetStream streams carry what must not be lost; an event only says "look again".
//
// Guarantees of both implementations:
// - At most once. A subscriber gets the events published after its subscription is in place:
//   at once for the memory bus and for publishes on the same NATS connection; for a publisher
//   in another process, once flush() on the subscriber's bus has resolved.
// - Events from one publisher (one bus) on one subject reach each subscriber in publish order.
// - Handlers never run inside publish(), and a throwing (or rejecting) handler affects neither
//   the publisher nor other handlers; its error goes to onError.
// - After an Unsubscribe returns, its handler is not called again.
// - Data is JSON: subscribers get their own decoded copy, never the publisher's object.
import { AppError } from "../core/errors.ts";

export type Unsubscribe = () => void;

export type Handler = (data: unknown, subject: string) => void;

export interface EventBus {
  /** Rejects if `data` is not JSON-serialisable or the subject is not a concrete subject. */
  publish(subject: string, data: unknown): Promise<void>;
  /**
   * Several events on one subject, as if published one after the other; on NATS they travel
   * as one message (one write and one delivery per subscriber instead of one per event).
   */
  publishMany(subject: string, list: unknown[]): Promise<void>;
  /** `*` matches one token, `>` (last token only) one or more remaining tokens. */
  subscribe(subject: string, handler: Handler): Unsubscribe;
  /**
   * Resolves once every subscribe() and publish() made on this bus before the call has reached
   * the broker: from then on, publishes from any process reach those subscriptions.
   */
  flush(): Promise<void>;
  /** Ends this bus's subscriptions; does not close a connection it was given. */
  close(): Promise<void>;
}

export interface BusOptions {
  /** Where handler failures and undecodable messages go. */
  onError?: (subject: string, err: unknown) => void;
}

/** NATS's own default maximum payload; a bigger event belongs in the database, not the bus. */
export const MAX_EVENT_BYTES = 1024 * 1024;

export const defaultOnError = (subject: string, err: unknown) => console.error(`event bus handler for ${subject}:`, err);

const TOKEN = /^[^\s.*>]+$/;

/** Throws unless `subject` is dot-separated non-empty tokens, wildcards only where allowed. */
export function checkSubject(subject: string, allowWildcards: boolean): string[] {
  const tokens = subject.split(".");
  tokens.forEach((token, i) => {
    if (TOKEN.test(token)) return;
    const wildcard = token === "*" || (token === ">" && i === tokens.length - 1);
    if (!(allowWildcards && wildcard)) throw new Error(`invalid ${allowWildcards ? "subscription" : "publish"} subject "${subject}"`);
  });
  return tokens;
}

/** NATS subject matching: `pattern` tokens (may hold wildcards) against a concrete subject's. */
export function subjectMatches(pattern: readonly string[], subject: readonly string[]): boolean {
  for (let i = 0; i < pattern.length; i++) {
    const token = pattern[i];
    if (token === ">") return subject.length > i;
    if (i >= subject.length || (token !== "*" && token !== subject[i])) return false;
  }
  return pattern.length === subject.length;
}

/** JSON text of an event, refusing what would not survive the trip or would not fit. */
export function encodeEvent(subject: string, data: unknown): string {
  const text = JSON.stringify(data);
  if (text === undefined) throw new Error(`event for ${subject} is not JSON-serialisable`);
  // Byte length is at most 3 × UTF-16 length; count exactly only when that bound is exceeded.
  if (text.length * 3 > MAX_EVENT_BYTES && Buffer.byteLength(text) > MAX_EVENT_BYTES) {
    throw new Error(`event for ${subject} is larger than ${MAX_EVENT_BYTES} bytes`);
  }
  return text;
}

/** Starts a wire message carrying several events (JSON text never starts with it). */
export const BATCH_MARK = "\u001e";

/** The wire messages for several events on one subject: each at most MAX_EVENT_BYTES. */
export function encodeEvents(subject: string, list: unknown[]): string[] {
  const messages: string[] = [];
  let parts: string[] = [];
  let size = 0;
  const close = () => {
    if (parts.length) messages.push(parts.length === 1 ? parts[0]! : `${BATCH_MARK}[${parts.join(",")}]`);
    parts = [];
    size = 0;
  };
  for (const data of list) {
    const text = encodeEvent(subject, data);
    if (size + text.length * 3 > MAX_EVENT_BYTES) close();
    parts.push(text);
    size += text.length * 3;
  }
  close();
  return messages;
}

/** The events one wire message carries. */
export const decodeEvents = (text: string): unknown[] => (text.startsWith(BATCH_MARK) ? JSON.parse(text.slice(1)) : [JSON.parse(text)]);

/** Runs a handler so that neither a throw nor a rejected promise escapes. */
export function deliver(handler: Handler, data: unknown, subject: string, onError: (subject: string, err: unknown) => void): void {
  try {
    const result: unknown = handler(data, subject);
    if (result instanceof Promise) result.catch((err: unknown) => onError(subject, err));
  } catch (err) {
    onError(subject, err);
  }
}

export const busClosed = () => new AppError("unavailable", "event bus is closed");
