// Server-Sent Events plumbing shared by the widget and inbox streams: framing, heartbeats,
// and ending the response exactly once — when the client goes away, when the server
// drains, or when the stream's own work fails. What a stream sends is a domain feed
// (domain/feed.ts); this file only writes it.
import type { Feed, FeedEvent, FeedSink } from "../../domain/feed.ts";

/** A comment this often keeps proxies and Bun's idle timeout from closing a quiet stream. */
export const HEARTBEAT_MS = 15_000;
/** EventSource waits this long before reconnecting after a drain or a network break. */
export const RETRY_MS = 3_000;

/** `id` is omitted for events that do not move the resume cursor (the client keeps its last id). */
export type SseEvent = FeedEvent;
export type SseSink = FeedSink;

export interface SseOptions {
  /** Any of these aborting ends the stream (the request's signal, the process's drain). */
  signals: AbortSignal[];
  heartbeatMs?: number;
  /** Extra response headers (CORS is added by the app's hooks). */
  headers?: Record<string, string>;
  /** Starts the stream's work once the response is open; returns its cleanup. */
  start(sink: SseSink): Promise<() => void>;
  onError(err: unknown): void;
  /** Runs exactly once when the stream ends, however it ends (frees a per-user slot). */
  onClose?(): void;
}

const encoder = new TextEncoder();

/** JSON never contains a raw line break, so one `data:` line carries the whole payload. */
export function frame(event: SseEvent): string {
  const id = event.id === undefined ? "" : `id: ${event.id}\n`;
  return `event: ${event.event}\n${id}data: ${JSON.stringify(event.data)}\n\n`;
}

export const SSE_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache, no-transform",
  // Proxies such as nginx buffer responses unless told not to; events must flow at once.
  "x-accel-buffering": "no",
} as const;

export function sseResponse(options: SseOptions): Response {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let closed = false;
  let cleanup: (() => void) | undefined;
  let heartbeat: ReturnType<typeof setInterval> | undefined;
  const onAbort = () => sink.close();

  const write = (text: string) => {
    if (closed) return;
    try {
      controller.enqueue(encoder.encode(text));
    } catch {
      finish(false);
    }
  };

  function finish(closeController: boolean) {
    if (closed) return;
    closed = true;
    clearInterval(heartbeat);
    for (const signal of options.signals) signal.removeEventListener("abort", onAbort);
    cleanup?.();
    cleanup = undefined;
    options.onClose?.();
    if (closeController) {
      try {
        controller.close();
      } catch {}
    }
  }

  const sink: SseSink = {
    send: (event) => write(frame(event)),
    get closed() {
      return closed;
    },
    close: () => finish(true),
  };

  const body = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
      write(`retry: ${RETRY_MS}\n\n`);
      if (options.signals.some((s) => s.aborted)) return finish(true);
      for (const signal of options.signals) signal.addEventListener("abort", onAbort, { once: true });
      heartbeat = setInterval(() => write(": ping\n\n"), options.heartbeatMs ?? HEARTBEAT_MS);
      options.start(sink).then(
        (stop) => {
          if (closed) stop();
          else cleanup = stop;
        },
        (err: unknown) => {
          options.onError(err);
          sink.close();
        },
      );
    },
    cancel() {
      finish(false);
    },
  });
  return new Response(body, { headers: { ...SSE_HEADERS, ...options.headers } });
}

/** Writes a domain feed as an event stream that ends when the client leaves or the process drains. */
export function feedResponse<E extends FeedEvent>(feed: Feed<E>, signal: AbortSignal): Response {
  return sseResponse({
    signals: [signal, feed.stopping],
    start: (sink) => feed.start(sink as FeedSink<E>),
    onError: (err) => feed.onError(err),
    onClose: feed.onClose,
  });
}
