// CORS on the public endpoints, and the widget config's allowed_origins.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { PUBLIC_CORS_PATHS } from "../../src/http/cors.ts";
import { createTestBot, registerUser, testClient, type Client, type TestBot, type TestUser } from "../support/harness.ts";
import { openStream } from "./sse.ts";

let client: Client;
let user: TestUser;
let bot: TestBot;
const SHOP = "https://shop.example";
const EVIL = "https://evil.example";

beforeAll(async () => {
  client = await testClient();
  user = await registerUser(client);
  bot = await createTestBot(client, user, "Cors bot");
});

afterAll(() => client.platform.close());

describe("CORS on public endpoints", () => {
  test("preflight is answered on every public path with the headers the widget sends", async () => {
    for (const path of PUBLIC_CORS_PATHS) {
      const res = await client.request("OPTIONS", path, {
        headers: { origin: SHOP, "access-control-request-method": "POST", "access-control-request-headers": "content-type, idempotency-key" },
      });
      expect({ path, status: res.status }).toEqual({ path, status: 204 });
      expect(res.headers.get("access-control-allow-origin")).toBe(SHOP);
      const allowed = res.headers.get("access-control-allow-headers")!;
      for (const h of ["content-type", "idempotency-key", "last-event-id"]) expect(allowed).toContain(h);
      expect(res.headers.get("access-control-allow-methods")).toContain("POST");
    }
  });

  test("answers echo the caller's origin, also on errors, and * without one", async () => {
    const ok = await client.request("GET", `/api/widget/config?widget_key=${bot.widget_key}`, { headers: { origin: SHOP } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("access-control-allow-origin")).toBe(SHOP);
    expect(ok.headers.get("access-control-expose-headers")).toContain("retry-after");
    const bad = await client.request("POST", "/api/messages", { body: { text: "" }, headers: { origin: SHOP } });
    expect(bad.status).toBe(400);
    expect(bad.headers.get("access-control-allow-origin")).toBe(SHOP);
    const server = await client.get(`/api/widget/config?widget_key=${bot.widget_key}`);
    expect(server.headers.get("access-control-allow-origin")).toBe("*");
  });

  test("private endpoints get no CORS headers", async () => {
    const res = await client.request("GET", "/api/bots", { token: user.token, headers: { origin: SHOP } });
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
    const pre = await client.request("OPTIONS", "/api/bots", { headers: { origin: SHOP } });
    expect(pre.headers.get("access-control-allow-origin")).toBeNull();
  });
});

describe("allowed_origins", () => {
  let guarded: TestBot;
  beforeAll(async () => {
    guarded = await createTestBot(client, user, "Guarded");
    const res = await client.patch(`/api/bots/${guarded.id}/channels`, {
      channel_type: "widget", config: { allowed_origins: [SHOP, "http://127.0.0.1:8080"] },
    }, user.token);
    expect(res.status).toBe(200);
  });

  const calls = (origin?: string) => {
    const headers: Record<string, string> = origin ? { origin } : {};
    return {
      config: () => client.request("GET", `/api/widget/config?widget_key=${guarded.widget_key}`, { headers }),
      send: () => client.request("POST", "/api/messages", { body: { widget_key: guarded.widget_key, chat_id: "o1", text: "hi" }, headers }),
      sendById: () => client.request("POST", "/api/messages", { body: { bot_id: guarded.id, chat_id: "o2", text: "hi" }, headers }),
      history: () => client.request("GET", `/api/messages?widget_key=${guarded.widget_key}&chat_id=o1`, { headers }),
    };
  };

  test("a listed origin and callers without an Origin (servers) are served", async () => {
    for (const origin of [SHOP, "https://SHOP.example", "http://127.0.0.1:8080", undefined]) {
      const c = calls(origin);
      for (const [name, call] of Object.entries(c)) {
        expect({ origin, name, status: (await call()).status }).toEqual({ origin, name, status: 200 });
      }
    }
  });

  test("any other origin is refused with 403 on config, messages, history and the stream", async () => {
    for (const origin of [EVIL, "http://127.0.0.1:8081", "null"]) {
      for (const [name, call] of Object.entries(calls(origin))) {
        const res = await call();
        expect({ origin, name, status: res.status }).toEqual({ origin, name, status: 403 });
        expect(res.body.error).toContain("allowed_origins");
        expect(res.headers.get("access-control-allow-origin")).toBe(origin);
      }
      const stream = await openStream(client.app, `/api/messages/stream?widget_key=${guarded.widget_key}&chat_id=o1`, { origin });
      expect(stream.status).toBe(403);
    }
    const allowed = await openStream(client.app, `/api/messages/stream?widget_key=${guarded.widget_key}&chat_id=o1`, { origin: SHOP });
    expect(allowed.status).toBe(200);
    await allowed.close();
  });

  test("an empty list restricts nothing", async () => {
    await client.patch(`/api/bots/${bot.id}/channels`, { channel_type: "widget", config: { allowed_origins: [] } }, user.token);
    const res = await client.request("GET", `/api/widget/config?widget_key=${bot.widget_key}`, { headers: { origin: EVIL } });
    expect(res.status).toBe(200);
  });
});
