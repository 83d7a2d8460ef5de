// A small Server-Sent Events reader for tests: opens a stream through the app (no socket),
// parses frames, and waits for the events a test expects.
import type { App } from "../../src/http/app.ts";

export interface SseFrame {
  event: string;
  id: string | undefined;
  data: any;
}

/** Generous: two cores shared with other test runs. */
export const EVENT_WAIT_MS = 15_000;

export interface OpenStream {
  status: number;
  headers: Headers;
  /** Every frame received so far, in order. */
  frames: SseFrame[];
  comments: string[];
  ended: Promise<void>;
  /** Resolves with the first frame (from `after` on) matching `match`. */
  next(match?: (f: SseFrame) => boolean, timeoutMs?: number): Promise<SseFrame>;
  /** Waits until `n` frames matching `match` have arrived; returns them. */
  collect(n: number, match?: (f: SseFrame) => boolean, timeoutMs?: number): Promise<SseFrame[]>;
  close(): Promise<void>;
  json?: any;
}

export async function openStream(app: App, path: string, headers: Record<string, string> = {}): Promise<OpenStream> {
  const abort = new AbortController();
  const res = await app.handle(new Request(`http://test.local${path}`, { headers, signal: abort.signal }));
  const frames: SseFrame[] = [];
  const comments: string[] = [];
  const waiters = new Set<() => void>();
  const notify = () => {
    for (const w of [...waiters]) w();
  };
  let consumed = 0;
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  const stream: OpenStream = {
    status: res.status,
    headers: res.headers,
    frames,
    comments,
    ended: Promise.resolve(),
    async next(match = () => true, timeoutMs = EVENT_WAIT_MS) {
      const [frame] = await stream.collect(1, match, timeoutMs);
      return frame!;
    },
    collect(n, match = () => true, timeoutMs = EVENT_WAIT_MS) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found: SseFrame[] = [];
          for (let i = consumed; i < frames.length && found.length < n; i++) {
            if (match(frames[i]!)) {
              found.push(frames[i]!);
              if (found.length === n) consumed = i + 1;
            }
          }
          if (found.length < n) return false;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(found);
          return true;
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`timed out waiting for ${n} event(s); got ${JSON.stringify(frames.slice(consumed))}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    async close() {
      abort.abort();
      await reader?.cancel().catch(() => {});
    },
  };
  if (!res.headers.get("content-type")?.startsWith("text/event-stream")) {
    stream.json = await res.json().catch(() => undefined);
    return stream;
  }
  reader = res.body!.getReader();
  const body = reader;
  stream.ended = (async () => {
    const decoder = new TextDecoder();
    let buffer = "";
    for (;;) {
      const { done, value } = await body.read().catch(() => ({ done: true, value: undefined }));
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let end: number;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const frame: SseFrame = { event: "message", id: undefined, data: undefined };
        let isEvent = false;
        for (const line of block.split("\n")) {
          if (line.startsWith(":")) comments.push(line.slice(1).trim());
          else if (line.startsWith("event: ")) frame.event = line.slice(7);
          else if (line.startsWith("id: ")) frame.id = line.slice(4);
          else if (line.startsWith("data: ")) {
            frame.data = JSON.parse(line.slice(6));
            isEvent = true;
          }
        }
        if (isEvent) frames.push(frame);
      }
      notify();
    }
    notify();
  })();
  return stream;
}
