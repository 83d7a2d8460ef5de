// A route answered under another spelling of its path (a trailing slash, doubled slashes)
// gets everything its route is owed: per-client limits count it, and HTML pages carry their
// security headers. A client that aborts mid-body is routine: logged at debug, not as an error.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Writable } from "node:stream";
import { DEFAULT_RATE_LIMITS } from "../../src/config.ts";
import { createApp } from "../../src/http/app.ts";
import { createLogger } from "../../src/logger.ts";
import { openPlatform } from "../../src/platform.ts";
import { composeServices } from "../../src/services.ts";
import { startServer, type RunningServer } from "../../src/server.ts";
import { MODE, sharedDb, testConfig } from "../support/harness.ts";

const LIMIT = 3;
let server: RunningServer;

beforeAll(async () => {
  // Limits are per client address and window; a run of its own keys them away from other files.
  const config = testConfig({ rateLimits: true, limits: { ...DEFAULT_RATE_LIMITS, publicPerIp: LIMIT, loginPerIp: LIMIT } });
  server = await startServer(config, createLogger(config), { db: await sharedDb(), migrate: false });
});
afterAll(async () => {
  await server.stop();
});

const send = (method: string, path: string, body?: unknown) =>
  fetch(`${server.url}${path}`, {
    method, headers: body === undefined ? {} : { "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body),
  });

/** Statuses of `n` requests, sent one after another. */
async function statuses(n: number, method: string, path: string, body?: unknown): Promise<number[]> {
  const seen: number[] = [];
  for (let i = 0; i < n; i++) seen.push((await send(method, path, body)).status);
  return seen;
}

describe(`per-client limits follow the route, not its spelling (${MODE})`, () => {
  test("the spellings reach the handlers (so they must be limited)", async () => {
    expect((await send("POST", "/api/messages/", {})).status).toBe(400);
  });

  for (const [method, path, body] of [
    ["POST", "/api/messages/", {}],
    ["GET", "/api/widget/config/?widget_key=wk_none", undefined],
    ["POST", "/api/auth/login/", { email: "nobody@example.com", password: "wrong-password" }],
    ["POST", "/api/auth/register/", { email: "x", password: "y" }],
  ] as const) {
    test(`${method} ${path} is limited like its route`, async () => {
      const seen = await statuses(LIMIT + 2, method, path, body);
      expect(seen.slice(-1)).toEqual([429]);
      expect(seen.filter((s) => s !== 429).length).toBeLessThanOrEqual(LIMIT);
    });
  }
});

describe("HTML pages under every spelling carry their security headers", () => {
  for (const path of ["/swagger", "/swagger/", "//swagger"]) {
    test(path, async () => {
      const res = await fetch(`${server.url}${path}`);
      await res.text();
      if (!res.headers.get("content-type")?.startsWith("text/html")) return;
      expect(res.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
      expect(res.headers.get("x-frame-options")).toBe("DENY");
    });
  }
  test("/swagger/ is such a page", async () => {
    const res = await fetch(`${server.url}/swagger/`);
    expect(res.headers.get("content-type")).toStartWith("text/html");
    await res.text();
  });
});

describe("a client that aborts mid-body", () => {
  test("is logged at debug, never at error, and answered with a 4xx", async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(...String(chunk).split("\n").filter(Boolean));
        done();
      },
    });
    const config = testConfig({ logLevel: "debug" });
    const platform = await openPlatform(config, createLogger(config, sink), { db: await sharedDb(), migrate: false });
    try {
      const app = createApp(composeServices(platform));
      for (let i = 0; i < 5; i++) {
        const abort = new AbortController();
        let controller!: ReadableStreamDefaultController<Uint8Array>;
        const body = new ReadableStream<Uint8Array>({
          start(c) {
            controller = c;
            c.enqueue(new TextEncoder().encode('{"text": "a slow bo'));
          },
        });
        const pending = app.handle(new Request("http://test.local/api/messages", {
          method: "POST", headers: { "content-type": "application/json" }, body, signal: abort.signal, duplex: "half",
        } as RequestInit));
        await Bun.sleep(20);
        abort.abort();
        controller.error(new DOMException("The operation was aborted.", "AbortError"));
        const res = await pending;
        expect(res.status).toBeGreaterThanOrEqual(400);
        expect(res.status).toBeLessThan(500);
      }
      await Bun.sleep(50);
      const records = lines.map((l) => JSON.parse(l) as { level: number; msg: string });
      expect(records.filter((r) => r.level >= 50)).toEqual([]);
      expect(records.filter((r) => r.msg === "client closed the request")).toHaveLength(5);
    } finally {
      await platform.close();
    }
  });
});
