// The SSE plumbing on its own: framing, heartbeats, and exactly-once cleanup.
import { describe, expect, test } from "bun:test";
import { frame, HEARTBEAT_MS, RETRY_MS, sseResponse } from "../../src/http/streams/sse.ts";

/** Reads until `needle` appears (or, with none, until the stream ends). */
async function readUntil(reader: ReadableStreamDefaultReader<Uint8Array>, needle?: string): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  while (needle === undefined || !text.includes(needle)) {
    const { done, value } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  return text;
}

describe("sseResponse", () => {
  test("the heartbeat is about 15 s, the reconnect delay a few seconds", () => {
    expect(HEARTBEAT_MS).toBe(15_000);
    expect(RETRY_MS).toBeGreaterThan(0);
  });

  test("frames carry event, optional id and one JSON data line", () => {
    expect(frame({ event: "message", id: 7, data: { text: "a\nb" } })).toBe('event: message\nid: 7\ndata: {"text":"a\\nb"}\n\n');
    expect(frame({ event: "ready", data: 1 })).toBe("event: ready\ndata: 1\n\n");
  });

  test("sends heartbeats while idle and cleans up once when a signal aborts", async () => {
    const stop = new AbortController();
    let cleanups = 0;
    const res = sseResponse({
      signals: [stop.signal],
      heartbeatMs: 20,
      start: async (sink) => {
        sink.send({ event: "ready", id: 1, data: {} });
        return () => cleanups++;
      },
      onError: () => {},
    });
    expect(res.headers.get("content-type")).toStartWith("text/event-stream");
    const reader = res.body!.getReader();
    const text = await readUntil(reader, ": ping");
    expect(text).toStartWith(`retry: ${RETRY_MS}\n\n`);
    expect(text).toContain("event: ready\nid: 1\n");
    stop.abort();
    stop.abort();
    expect(cleanups).toBe(1);
    await readUntil(reader);
  });

  test("a failing start ends the stream and reports the error", async () => {
    const errors: unknown[] = [];
    const res = sseResponse({
      signals: [],
      start: async () => {
        throw new Error("db down");
      },
      onError: (err) => errors.push(err),
    });
    await res.text();
    expect((errors[0] as Error).message).toBe("db down");
  });
});
