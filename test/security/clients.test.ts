// Every limit counts per client, the client being the socket's address
// (or, behind TRUST_PROXY, the forwarded one), also for requests that fail validation.
import { afterEach, describe, expect, test } from "bun:test";
import { DEFAULT_RATE_LIMITS, loadConfig, type TrustProxy } from "../../src/config.ts";
import { clientKey, resolveClient } from "../../src/http/client.ts";
import type { RunningServer } from "../../src/server.ts";
import { uniqueEmail } from "../support/harness.ts";
import { limitedServer, requestFrom } from "./support.ts";

const running: RunningServer[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.stop()));
});

async function serve(overrides: Parameters<typeof limitedServer>[0]): Promise<RunningServer> {
  const server = await limitedServer(overrides);
  running.push(server);
  return server;
}

const A = "127.0.0.2";
const B = "127.0.0.3";

describe("client addresses", () => {
  const forwardedFor = (value?: string) => new Request("http://x/", { headers: value ? { "x-forwarded-for": value } : {} });
  const none: TrustProxy = { kind: "none" };

  test("without TRUST_PROXY the socket peer is the client, whatever X-Forwarded-For says", () => {
    expect(resolveClient("10.0.0.9", forwardedFor("1.2.3.4"), none)).toBe("10.0.0.9");
  });

  test("a hop count takes the address that many proxies in from the right", () => {
    const req = forwardedFor("6.6.6.6, 1.2.3.4, 10.0.0.2");
    expect(resolveClient("10.0.0.1", req, { kind: "hops", hops: 1 })).toBe("10.0.0.2");
    expect(resolveClient("10.0.0.1", req, { kind: "hops", hops: 2 })).toBe("1.2.3.4");
    expect(resolveClient("10.0.0.1", forwardedFor(), { kind: "hops", hops: 1 })).toBe("10.0.0.1");
    expect(resolveClient("10.0.0.1", forwardedFor("garbage"), { kind: "hops", hops: 1 })).toBe("10.0.0.1");
  });

  test("trusted ranges are skipped from the right; a spoofed left part is never reached", () => {
    const trust: TrustProxy = { kind: "cidrs", ranges: ["10.0.0.0/8", "fd00::/8"] };
    expect(resolveClient("10.0.0.1", forwardedFor("6.6.6.6, 1.2.3.4, 10.9.9.9"), trust)).toBe("1.2.3.4");
    expect(resolveClient("8.8.8.8", forwardedFor("1.2.3.4"), trust)).toBe("8.8.8.8");
    expect(resolveClient("fd00::1", forwardedFor("2001:db8::5"), trust)).toBe("2001:db8::5");
  });

  test("an IPv6 client counts as its /64", () => {
    expect(clientKey("2001:db8:1:2:aaaa::1")).toBe(clientKey("2001:db8:1:2:bbbb::9"));
    expect(clientKey("2001:db8:1:3::1")).not.toBe(clientKey("2001:db8:1:2::1"));
    expect(clientKey("192.0.2.1")).toBe("192.0.2.1");
  });

  test("TRUST_PROXY accepts off, a hop count or ranges, and names itself when wrong", () => {
    expect(loadConfig({}).trustProxy).toEqual({ kind: "none" });
    expect(loadConfig({ TRUST_PROXY: "off" }).trustProxy).toEqual({ kind: "none" });
    expect(loadConfig({ TRUST_PROXY: "2" }).trustProxy).toEqual({ kind: "hops", hops: 2 });
    expect(loadConfig({ TRUST_PROXY: "10.0.0.0/8, ::1" }).trustProxy).toEqual({ kind: "cidrs", ranges: ["10.0.0.0/8", "::1"] });
    for (const bad of ["10.0.0.0/33", "proxy.local", "99"]) expect(() => loadConfig({ TRUST_PROXY: bad })).toThrow("TRUST_PROXY");
  });
});

describe("limits per client over real sockets", () => {
  test("two client addresses get separate public limits; requests failing validation count", async () => {
    const server = await serve({ limits: { ...DEFAULT_RATE_LIMITS, publicPerIp: 3 } });
    const invalid = { text: 42 };
    const fromA = [];
    for (let i = 0; i < 4; i++) fromA.push((await requestFrom(A, `${server.url}/api/messages`, { method: "POST", body: invalid })).status);
    expect(fromA).toEqual([400, 400, 400, 429]);
    const refused = await requestFrom(A, `${server.url}/api/widget/config?widget_key=x`);
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ ok: false, error_code: 429 });
    expect(refused.body.retry_after).toBeGreaterThan(0);
    // B is another client: its own bucket is untouched.
    expect((await requestFrom(B, `${server.url}/api/messages`, { method: "POST", body: invalid })).status).toBe(400);
  });

  test("a locked-out client does not lock the user out from another address", async () => {
    const server = await serve({ limits: { ...DEFAULT_RATE_LIMITS, loginPerEmail: 3 } });
    const email = uniqueEmail("lockout");
    const login = (from: string, password: string) =>
      requestFrom(from, `${server.url}/api/auth/login`, { method: "POST", body: { email, password } });
    expect((await requestFrom(A, `${server.url}/api/auth/register`, { method: "POST", body: { email, password: "secret123" } })).status).toBe(200);
    const attacker = [];
    for (let i = 0; i < 4; i++) attacker.push((await login(A, "wrong-guess")).status);
    expect(attacker).toEqual([401, 401, 401, 429]);
    expect((await login(A, "secret123")).status).toBe(429);
    expect((await login(B, "secret123")).status).toBe(200);
  });

  test("login and register per-IP limits count malformed attempts too, per client", async () => {
    const server = await serve({ limits: { ...DEFAULT_RATE_LIMITS, loginPerIp: 2 } });
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await requestFrom(A, `${server.url}/api/auth/login`, { method: "POST", raw: "{nope" })).status);
    expect(statuses).toEqual([400, 400, 429]);
    expect((await requestFrom(B, `${server.url}/api/auth/login`, { method: "POST", raw: "{nope" })).status).toBe(400);
    const registers = [];
    for (let i = 0; i < 3; i++) registers.push((await requestFrom(A, `${server.url}/api/auth/register`, { method: "POST", body: {} })).status);
    expect(registers).toEqual([400, 400, 429]);
  });

  test("TRUST_PROXY off: X-Forwarded-For does not open a new bucket", async () => {
    const server = await serve({ limits: { ...DEFAULT_RATE_LIMITS, publicPerIp: 2 } });
    const statuses = [];
    for (let i = 0; i < 3; i++) {
      const headers = { "x-forwarded-for": `198.51.100.${i + 1}` };
      statuses.push((await requestFrom(A, `${server.url}/api/widget/config?widget_key=x`, { headers })).status);
    }
    expect(statuses).toEqual([404, 404, 429]);
  });

  test("TRUST_PROXY on: each forwarded client has its own bucket; an untrusted peer's header is ignored", async () => {
    const server = await serve({ limits: { ...DEFAULT_RATE_LIMITS, publicPerIp: 1 }, trustProxy: { kind: "cidrs", ranges: [`${A}/32`] } });
    const config = (from: string, forwarded: string) =>
      requestFrom(from, `${server.url}/api/widget/config?widget_key=x`, { headers: { "x-forwarded-for": forwarded } });
    expect((await config(A, "198.51.100.1")).status).toBe(404);
    expect((await config(A, "198.51.100.1")).status).toBe(429);
    expect((await config(A, "198.51.100.2")).status).toBe(404);
    // B is not a trusted proxy: its forwarded address is its own claim, so B itself is counted.
    expect((await config(B, "198.51.100.3")).status).toBe(404);
    expect((await config(B, "198.51.100.4")).status).toBe(429);

    const hops = await serve({ limits: { ...DEFAULT_RATE_LIMITS, publicPerIp: 1 }, trustProxy: { kind: "hops", hops: 1 } });
    const viaHop = (forwarded: string) => requestFrom(A, `${hops.url}/api/widget/config?widget_key=x`, { headers: { "x-forwarded-for": forwarded } });
    expect((await viaHop("203.0.113.1")).status).toBe(404);
    expect((await viaHop("6.6.6.6, 203.0.113.1")).status).toBe(429);
    expect((await viaHop("203.0.113.2")).status).toBe(404);
  });
});
