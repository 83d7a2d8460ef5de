// The operator's view of a running server: one info line per request (method, route
// pattern, status, duration, bot or user, request id echoed in X-Request-Id), a warning
// when clients hit a rate limit, no secret in any line, and /metrics in Prometheus format.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Writable } from "node:stream";
import { createApp } from "../../src/http/app.ts";
import { createLogger } from "../../src/logger.ts";
import { openPlatform, type Platform } from "../../src/platform.ts";
import { composeServices } from "../../src/services.ts";
import { sharedDb, testConfig, uniqueEmail } from "../support/harness.ts";

const PASSWORD = "correct-horse-battery-staple-42";
const lines: string[] = [];
const sink = new Writable({
  write(chunk, _encoding, done) {
    lines.push(...String(chunk).split("\n").filter(Boolean));
    done();
  },
});
const records = () => lines.map((l) => JSON.parse(l) as Record<string, any>);
const requestLines = () => records().filter((r) => r.msg === "request");

let platform: Platform;
let app: ReturnType<typeof createApp>;
let sent = 0;
/** Visitor messages answered 200: what botinbox_messages_accepted_total must count. */
let acceptedMessages = 0;

async function call(method: string, path: string, options: { body?: unknown; token?: string; headers?: Record<string, string> } = {}) {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers["content-type"] = "application/json";
  sent++;
  const res = await app.handle(new Request(`http://test.local${path}`, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) }));
  if (method === "POST" && path === "/api/messages" && res.status === 200) acceptedMessages++;
  const text = await res.text();
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {}
  return { status: res.status, headers: res.headers, body };
}

/** The log line is written after the response; give it a moment, then compare. */
async function settle(expected: number) {
  for (let i = 0; i < 100 && requestLines().length < expected; i++) await Bun.sleep(20);
}

const config = testConfig({
  logLevel: "info",
  rateLimits: true,
  limits: { publicPerIp: 3, publicPerBot: 1000, loginPerEmail: 100, loginPerIp: 100, botSendPerSecond: 30 },
});

beforeAll(async () => {
  platform = await openPlatform(config, createLogger(config, sink), { db: await sharedDb(), migrate: false, relayIntervalMs: 0 });
  app = createApp(composeServices(platform));
});
afterAll(() => platform.close());

const secrets: string[] = [PASSWORD, config.jwtSecret!];
let bot: { id: string; token: string };
let userId = "";

describe("request log", () => {
  test("one line per request with method, route pattern, status, duration, bot or user and the echoed request id", async () => {
    const email = uniqueEmail("log");
    const registered = await call("POST", "/api/auth/register", { body: { email, password: PASSWORD } });
    expect(registered.status).toBe(200);
    const userToken: string = registered.body.result.token;
    userId = registered.body.result.user.id;
    secrets.push(userToken);
    const login = await call("POST", "/api/auth/login", { body: { email, password: PASSWORD } });
    secrets.push(login.body.result.token);
    const created = await call("POST", "/api/bots", { body: { name: "Logged bot" }, token: userToken });
    expect(created.status).toBe(201);
    bot = { id: created.body.result.id, token: created.body.result.token };
    secrets.push(bot.token, created.body.result.widget_key, created.body.result.integration_key);
    const webhookSecret = "webhook-secret-token-abcdef";
    secrets.push(webhookSecret);
    await call("POST", `/api/bots/${bot.id}/set-webhook`, { body: { url: "https://example.com/hook", secret_token: webhookSecret }, token: bot.token });
    await call("POST", `/api/bots/${bot.id}/delete-webhook`, { body: {}, token: bot.token });
    const accepted = await call("POST", "/api/messages", { body: { bot_id: bot.id, chat_id: "log-chat", text: "hello" }, headers: { "x-request-id": "client-rid-1" } });
    expect(accepted.status).toBe(200);
    expect(accepted.headers.get("x-request-id")).toBe("client-rid-1");
    const polled = await call("GET", `/api/bots/${bot.id}/get-updates?timeout=0`, { token: bot.token });
    expect(polled.status).toBe(200);
    // The Telegram facade carries the token in its path.
    const me = await call("GET", `/bot${bot.token}/getMe`);
    expect(me.status).toBe(200);
    const missing = await call("GET", "/api/no-such-route");
    expect(missing.status).toBe(404);
    const invalid = await call("POST", "/api/messages", { body: { bot_id: "not-a-uuid" } });
    expect(invalid.status).toBe(400);
    expect(invalid.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);

    await settle(sent);
    const logged = requestLines();
    expect(logged.length).toBe(sent);
    for (const line of logged) {
      expect(line.level).toBe(30);
      expect(Object.keys(line)).toEqual(expect.arrayContaining(["method", "route", "status", "ms", "rid"]));
      expect(typeof line.ms).toBe("number");
    }
    const byRoute = (route: string) => logged.filter((l) => l.route === route);
    expect(byRoute("/api/messages").map((l) => l.status).sort()).toEqual([200, 400]);
    expect(byRoute("/api/messages").find((l) => l.status === 200)!.rid).toBe("client-rid-1");
    expect(byRoute("/api/bots/:id/get-updates")[0]).toMatchObject({ method: "GET", status: 200, bot: bot.id });
    expect(byRoute("/api/bots")[0]).toMatchObject({ method: "POST", status: 201, user: userId });
    expect(byRoute("/bot:token/:method")[0]).toMatchObject({ status: 200, bot: bot.id });
    expect(logged.find((l) => l.status === 404)!.route).toBe("(no route)");
  });

  test("a burst of 429s warns once per route and window", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) {
      statuses.push((await call("POST", "/api/messages", { body: { bot_id: bot.id, chat_id: `burst-${i}`, text: "x" } })).status);
    }
    expect(statuses).toContain(429);
    await settle(sent);
    const warnings = records().filter((r) => r.level === 40 && String(r.msg).startsWith("rate limit reached"));
    expect(warnings.length).toBe(1);
    expect(warnings[0]!.route).toBe("/api/messages");
  });

  test("no token, password or secret appears in any log line", () => {
    expect(lines.length).toBeGreaterThan(10);
    for (const secret of secrets) {
      expect(secret.length).toBeGreaterThan(8);
      const leaking = lines.filter((line) => line.includes(secret));
      expect(leaking).toEqual([]);
    }
  });
});

describe("/metrics", () => {
  test("Prometheus text with request counts and latencies by route, accepted messages, pending updates, outbox size", async () => {
    const res = await app.handle(new Request("http://test.local/metrics"));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toStartWith("text/plain");
    const text = await res.text();
    expect(text).toMatch(/^botinbox_http_requests_total\{method="POST",route="\/api\/messages",status="200"\} [1-9]/m);
    expect(text).toMatch(/^botinbox_http_requests_total\{method="POST",route="\/api\/messages",status="429"\} [1-9]/m);
    expect(text).toMatch(/^botinbox_http_request_duration_seconds_bucket\{le="\+Inf",method="GET",route="\/api\/bots\/:id\/get-updates"\} 1$/m);
    const accepted = Number(/^botinbox_messages_accepted_total (\d+)/m.exec(text)?.[1]);
    expect(acceptedMessages).toBeGreaterThan(0);
    expect(accepted).toBe(acceptedMessages);
    expect(text).toMatch(/^botinbox_updates_pending \d+/m);
    expect(text).toMatch(/^botinbox_outbox_size \d+/m);
    expect(text).toContain("# TYPE botinbox_webhook_deliveries_total counter");
  });
});
