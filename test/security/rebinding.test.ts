// DNS rebinding: webhook, channel-callback (both postJson) and push deliveries connect to the
// address the SSRF guard checked, never to a second lookup of the name. The name used is
// "localhost", so a sender that resolved it again (system DNS) would reach the loopback
// receiver; the injected resolver answers a public address for the check and loopback after.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Server } from "bun";
import { join } from "node:path";
import webPush from "web-push";
import { sendPush } from "../../src/delivery/webpush.ts";
import { postJson } from "../../src/delivery/http.ts";
import { pinnedRequest, type Resolver, type UrlPolicy } from "../../src/delivery/ssrf.ts";
import { browserKeys } from "../push/webpush.ts";

/** TEST-NET-free, globally routed: passes the guard; nothing here can be reached through it. */
const PUBLIC = "93.184.216.34";
const FIXTURES = join(import.meta.dir, "fixtures");

/** Public for the first `publicAnswers` lookups, loopback afterwards: a rebinding DNS server. */
function rebinding(publicAnswers = 1): { resolver: Resolver; lookups: string[] } {
  const lookups: string[] = [];
  const resolver: Resolver = async (host) => {
    lookups.push(host);
    return lookups.length <= publicAnswers ? [PUBLIC] : ["127.0.0.1"];
  };
  return { resolver, lookups };
}

let loopback: Server<unknown>;
const hits: string[] = [];

beforeAll(() => {
  loopback = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(req) {
      hits.push(`${req.headers.get("host")} ${new URL(req.url).pathname}`);
      return new Response("reached loopback");
    },
  });
});

afterAll(() => loopback.stop(true));

describe("webhook and callback deliveries (postJson)", () => {
  test("a name rebound to loopback after the check is not connected to", async () => {
    const { resolver, lookups } = rebinding();
    const policy: UrlPolicy = { allowPrivate: false, resolve: resolver };
    const url = `http://localhost:${loopback.port}/hook`;
    const first = await postJson(url, "{}", {}, { policy, timeoutMs: 1500 });
    // Within the verdict's window the checked address is reused, not looked up again.
    const second = await postJson(url, "{}", {}, { policy, timeoutMs: 1500 });
    // Whatever the public address does with the request (unreachable, or a sandbox's egress
    // answering), the check passed and loopback never saw it.
    expect(first.error ?? "").not.toContain("refused");
    expect(second.error ?? "").not.toContain("refused");
    expect(lookups).toEqual(["localhost"]);
    expect(hits).toEqual([]);
  });

  test("a fresh check sees the rebound answer and refuses it", async () => {
    const { resolver } = rebinding(0);
    const outcome = await postJson(`http://localhost:${loopback.port}/hook`, "{}", {}, { policy: { allowPrivate: false, resolve: resolver } });
    expect(outcome.error).toContain("127.0.0.1, a loopback address");
    expect(hits).toEqual([]);
  });

  test("with private targets allowed the URL is used as it is", async () => {
    const outcome = await postJson(`http://localhost:${loopback.port}/allowed`, "{}", {}, { policy: { allowPrivate: true } });
    expect(outcome.ok).toBe(true);
    expect(hits.splice(0)).toEqual([`localhost:${loopback.port} /allowed`]);
  });
});

describe("push deliveries", () => {
  test("a push endpoint rebound to loopback after the check is not connected to", async () => {
    const { resolver, lookups } = rebinding();
    const keys = await browserKeys();
    const vapid = webPush.generateVAPIDKeys();
    const result = await sendPush(
      { endpoint: `http://localhost:${loopback.port}/push`, p256dh: keys.p256dh, auth: keys.auth },
      { title: "t", body: "b", conversation_id: crypto.randomUUID(), bot_id: crypto.randomUUID(), url: "/" },
      vapid,
      "mailto:ops@example.com",
      { allowPrivate: false, resolve: resolver },
    );
    expect(result.error ?? "").not.toContain("loopback");
    expect(lookups).toEqual(["localhost"]);
    expect(hits).toEqual([]);
  });
});

describe("pinnedRequest", () => {
  test("http: the checked address is connected to, with the URL's Host", async () => {
    const pinned = pinnedRequest({ url: new URL(`http://hook.test:${loopback.port}/in?x=1`), addresses: ["127.0.0.1", PUBLIC] });
    expect(pinned.url).toBe(`http://127.0.0.1:${loopback.port}/in?x=1`);
    expect(pinned.tls).toBeUndefined();
    const res = await fetch(pinned.url, { headers: pinned.headers });
    expect(await res.text()).toBe("reached loopback");
    expect(hits.splice(0)).toEqual([`hook.test:${loopback.port} /in`]);
  });

  test("IPv6 addresses are bracketed; IP-literal URLs are left alone", () => {
    expect(pinnedRequest({ url: new URL("https://hook.test/x"), addresses: ["2606:2800:220:1::1"] })).toEqual({
      url: "https://[2606:2800:220:1::1]/x", headers: { host: "hook.test" }, tls: { serverName: "hook.test" },
    });
    expect(pinnedRequest({ url: new URL("http://[2606:2800:220:1::1]:81/x"), addresses: ["2606:2800:220:1::1"] })).toEqual({
      url: "http://[2606:2800:220:1::1]:81/x", headers: {},
    });
  });

  test("https: SNI and the certificate check still use the hostname", async () => {
    const cert = await Bun.file(join(FIXTURES, "hook-test.crt")).text();
    const key = await Bun.file(join(FIXTURES, "hook-test.key")).text();
    const tlsServer = Bun.serve({ port: 0, hostname: "127.0.0.1", tls: { cert, key }, fetch: (req) => new Response(req.headers.get("host")) });
    try {
      const good = pinnedRequest({ url: new URL(`https://hook.test:${tlsServer.port}/`), addresses: ["127.0.0.1"] });
      const res = await fetch(good.url, { headers: good.headers, tls: { ...good.tls, ca: cert } });
      expect(await res.text()).toBe(`hook.test:${tlsServer.port}`);
      // The same address under another name: the certificate (for hook.test) does not match it.
      const wrong = pinnedRequest({ url: new URL(`https://other.test:${tlsServer.port}/`), addresses: ["127.0.0.1"] });
      const refused = await fetch(wrong.url, { headers: wrong.headers, tls: { ...wrong.tls, ca: cert } }).catch((err) => err as Error);
      expect(refused).toBeInstanceOf(Error);
      expect((refused as { code?: string }).code).toBe("ERR_TLS_CERT_ALTNAME_INVALID");
    } finally {
      tlsServer.stop(true);
    }
  });
});
