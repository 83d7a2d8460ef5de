// Production scale-out: a long poll parked on one web process is woken by a message that
// another process accepted (NATS core wake-up, JetStream log, shared Postgres).
import { afterAll, describe, expect, test } from "bun:test";
import type { Subprocess } from "bun";
import { createTestBot, MODE, registerUser, testClient } from "../support/harness.ts";

let child: Subprocess | undefined;
afterAll(() => child?.kill());

async function startWebProcess(): Promise<string> {
  child = Bun.spawn(["./node_modules/.bin/bun", "src/web.ts"], {
    env: { ...process.env, PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "info" },
    stdout: "pipe",
    stderr: "inherit",
  });
  const reader = (child.stdout as ReadableStream<Uint8Array>).getReader();
  let buffered = "";
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    const { value, done } = await reader.read();
    if (done) break;
    buffered += new TextDecoder().decode(value);
    const match = /"url":"(http:\/\/[^"]+)"/.exec(buffered);
    if (match) {
      reader.releaseLock();
      return match[1]!;
    }
  }
  throw new Error(`web process did not start: ${buffered}`);
}

describe("two processes", () => {
  test.skipIf(MODE !== "production")("a message accepted by process A wakes a long poll on process B", async () => {
    const a = await testClient();
    const user = await registerUser(a);
    const bot = await createTestBot(a, user);
    const urlB = await startWebProcess();
    const poll = fetch(`${urlB}/api/bots/${bot.id}/get-updates?timeout=20`, { headers: { authorization: `Bearer ${bot.token}` } });
    await Bun.sleep(500);
    const started = performance.now();
    const accepted = await a.post("/api/messages", { bot_id: bot.id, chat_id: "two-proc", text: "from A" });
    expect(accepted.status).toBe(200);
    const res = await poll;
    const body = (await res.json()) as any;
    expect(res.status).toBe(200);
    expect(body.result.map((u: any) => u.message.text)).toEqual(["from A"]);
    expect(performance.now() - started).toBeLessThan(5000);
    await a.platform.close();
  });
});
