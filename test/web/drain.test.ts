// A real server with open event streams drains promptly: the streams end cleanly when
// SIGTERM's drain begins instead of holding the server open until the drain timeout.
import { describe, expect, test } from "bun:test";
import { createLogger } from "../../src/logger.ts";
import { startServer } from "../../src/server.ts";
import { sharedDb, testConfig } from "../support/harness.ts";

/** Well under the server's 10 s drain timeout, which a stream holding it open would hit. */
const PROMPT_DRAIN_MS = 8_000;

async function readUntil(reader: ReadableStreamDefaultReader<Uint8Array>, needle: string): Promise<void> {
  const decoder = new TextDecoder();
  let text = "";
  while (!text.includes(needle)) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`stream ended before ${needle}`);
    text += decoder.decode(value, { stream: true });
  }
}

describe("event streams and draining", () => {
  test("open widget and inbox streams end when the server stops", async () => {
    const config = testConfig({ port: 0, host: "127.0.0.1" });
    const server = await startServer(config, createLogger(config), { db: await sharedDb(), migrate: false });
    const call = async (path: string, body: unknown, token?: string) =>
      (await (await fetch(`${server.url}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify(body),
      })).json() as any).result;
    const user = await call("/api/auth/register", { email: `drain-${crypto.randomUUID()}@example.com`, password: "secret123" });
    const bot = await call("/api/bots", { name: "Drain bot" }, user.token);

    const widget = await fetch(`${server.url}/api/messages/stream?widget_key=${bot.widget_key}&chat_id=d1`);
    const inbox = await fetch(`${server.url}/api/inbox/stream`, { headers: { authorization: `Bearer ${user.token}` } });
    const readers = [widget.body!.getReader(), inbox.body!.getReader()];
    for (const reader of readers) await readUntil(reader, "event: ready");

    const started = Date.now();
    await server.stop();
    expect(Date.now() - started).toBeLessThan(PROMPT_DRAIN_MS);
    for (const reader of readers) {
      let done = false;
      while (!done) done = (await reader.read().catch(() => ({ done: true }))).done;
    }
  });
});
