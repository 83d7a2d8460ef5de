// The inbox's live feed: GET /api/inbox/stream read with fetch(), because EventSource cannot
// send the Authorization header (and a token in the URL would end up in logs). After a
// break it reconnects with Last-Event-ID, so the server replays what happened meanwhile.
import { signal } from "@preact/signals";
import type { InboxStreamEvent } from "../../src/core/events.ts";
import { session } from "./api.ts";
import { FIRST_RETRY_MS, MAX_RETRY_MS } from "./retry.ts";

export type LiveState = "connecting" | "live" | "offline";
/** What listeners get: the server's union, `ready` told whether the stream resumed. */
export type LiveEvent = Exclude<InboxStreamEvent, { kind: "ready" }> | { kind: "ready"; cursor: string; resumed: boolean };
export type LiveListener = (event: LiveEvent) => void;

export class LiveFeed {
  private listeners = new Set<LiveListener>();
  private lastEventId: string | null = null;
  private abort: AbortController | undefined;
  private stopped = true;
  /** Views read it as state; the header's badge shows it. */
  readonly state = signal<LiveState>("offline");

  constructor(private readonly onUnauthorized: () => void) {}

  on(listener: LiveListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.lastEventId = null;
    void this.run();
  }

  stop(): void {
    this.stopped = true;
    this.abort?.abort();
    this.setState("offline");
  }

  private setState(state: LiveState) {
    this.state.value = state;
  }

  private emit(event: LiveEvent) {
    for (const l of [...this.listeners]) {
      try {
        l(event);
      } catch (err) {
        console.error("live listener failed", err);
      }
    }
  }

  private async run(): Promise<void> {
    // The first wait after a break, doubled per failure up to the ceiling.
    let backoff = FIRST_RETRY_MS;
    while (!this.stopped) {
      this.setState("connecting");
      this.abort = new AbortController();
      try {
        const headers: Record<string, string> = { authorization: `Bearer ${session.token}`, accept: "text/event-stream" };
        if (this.lastEventId) headers["last-event-id"] = this.lastEventId;
        const res = await fetch("/api/inbox/stream", { headers, signal: this.abort.signal });
        if (res.status === 401) {
          this.stopped = true;
          this.onUnauthorized();
          break;
        }
        if (!res.ok || !res.body) throw new Error(`stream answered ${res.status}`);
        await this.read(res.body, Boolean(headers["last-event-id"]), () => (backoff = FIRST_RETRY_MS));
      } catch {}
      if (this.stopped) break;
      this.setState("offline");
      await new Promise((resolve) => setTimeout(resolve, backoff));
      backoff = Math.min(backoff * 2, MAX_RETRY_MS);
    }
    this.setState("offline");
  }

  /**
   * Parses the event stream (event, id, data fields; comments are heartbeats). `ready`
   * carries `resumed`: false means nothing was replayed and views should load afresh.
   */
  private async read(body: ReadableStream<Uint8Array>, resumed: boolean, onReady: () => void): Promise<void> {
    const reader = body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true }).replace(/\r\n?/g, "\n");
      let end: number;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        let event = "message";
        let data = "";
        for (const line of block.split("\n")) {
          const colon = line.indexOf(":");
          if (colon === 0) continue;
          const field = colon < 0 ? line : line.slice(0, colon);
          const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
          if (field === "event") event = value;
          else if (field === "data") data += (data ? "\n" : "") + value;
          else if (field === "id") this.lastEventId = value;
        }
        if (!data) continue;
        if (event === "ready") {
          onReady();
          this.setState("live");
        }
        let parsed: unknown;
        try {
          parsed = JSON.parse(data);
        } catch {
          continue;
        }
        if (parsed === null || typeof parsed !== "object") continue;
        // The event name is the kind (the data of control events has none of its own).
        this.emit({ ...parsed, kind: event, ...(event === "ready" ? { resumed } : {}) } as LiveEvent);
      }
    }
  }
}
