import { describe, expect, test } from "bun:test";
import { startServer } from "../../src/server.ts";
import { createLogger } from "../../src/logger.ts";
import { sharedDb, testConfig } from "../support/harness.ts";

describe("draining", () => {
  test("stopping the server answers a parked long poll with an empty result at once", async () => {
    const config = testConfig();
    const server = await startServer(config, createLogger(config), { db: await sharedDb(), migrate: false });
    const email = `drain-${crypto.randomUUID()}@example.com`;
    const post = (path: string, body: unknown, token?: string) =>
      fetch(`${server.url}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify(body),
      }).then((r) => r.json() as Promise<any>);
    const { token } = (await post("/api/auth/register", { email, password: "secret123" })).result;
    const bot = (await post("/api/bots", { name: "Drain" }, token)).result;
    const started = Date.now();
    const poll = fetch(`${server.url}/api/bots/${bot.id}/get-updates?timeout=30`, { headers: { authorization: `Bearer ${bot.token}` } });
    await Bun.sleep(200);
    const stopping = server.stop();
    const res = await poll;
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true, result: [] });
    expect(Date.now() - started).toBeLessThan(5000);
    await stopping;
  });
});
