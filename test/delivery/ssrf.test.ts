// The SSRF guard with ALLOW_PRIVATE_WEBHOOKS off: at set-webhook, at bot creation and at
// delivery time; redirects are failures, never followed.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { postJson } from "../../src/delivery/http.ts";
import { checkTarget, forbiddenAddress, type Resolver, type UrlPolicy } from "../../src/delivery/ssrf.ts";
import { registerUser, testClient, type Client, type TestUser } from "../support/harness.ts";
import { startReceiver, type Receiver } from "./support.ts";

/** "evil.test" resolves to whatever the test says; nothing else resolves. */
const fakeDns = (answers: Record<string, string[]>): Resolver => async (host) => {
  const found = answers[host];
  if (!found) throw Object.assign(new Error("not found"), { code: "ENOTFOUND" });
  return found;
};
const strict = (answers: Record<string, string[]> = {}): UrlPolicy => ({ allowPrivate: false, resolve: fakeDns(answers) });

describe("forbiddenAddress", () => {
  test.each([
    "127.0.0.1", "127.255.0.9", "10.0.0.1", "10.255.255.255", "172.16.0.1", "172.31.255.1", "192.168.1.1", "100.64.0.1",
    "169.254.169.254", "169.254.0.1", "0.0.0.0", "224.0.0.1", "255.255.255.255",
    "::1", "::", "fe80::1", "fc00::1", "fd12:3456::1", "ff02::1", "::ffff:127.0.0.1", "::ffff:7f00:1", "::ffff:10.1.2.3",
    "::ffff:169.254.169.254", "64:ff9b::a00:1", "2002:a00:1::1", "::127.0.0.1",
  ])("%s is refused", (ip) => {
    expect(forbiddenAddress(ip)).toBeString();
  });

  test.each(["93.184.216.34", "8.8.8.8", "172.32.0.1", "100.128.0.1", "2606:2800:220:1:248:1893:25c8:1946", "::ffff:8.8.8.8"])(
    "%s is public",
    (ip) => {
      expect(forbiddenAddress(ip)).toBeUndefined();
    },
  );
});

describe("checkTarget with the flag off", () => {
  test.each([
    ["http://127.0.0.1:8080/hook", "loopback"],
    ["http://10.1.2.3/hook", "private"],
    ["http://169.254.169.254/latest/meta-data/", "link-local"],
    ["http://[::1]:3000/hook", "loopback"],
    ["http://[::ffff:127.0.0.1]/hook", "loopback"],
    ["http://2130706433/hook", "loopback"],
    ["http://0x7f.0.0.1/hook", "loopback"],
    ["https://localhost/hook", "loopback"],
  ])("%s is refused (%s)", async (url, why) => {
    // localhost goes through the system resolver: it resolves to loopback everywhere.
    const policy = url.includes("localhost") ? { allowPrivate: false } : strict();
    await expect(checkTarget(url, policy)).rejects.toThrow(why);
  });

  test("a hostname resolving to a private address is refused, also when only one of its addresses is", async () => {
    await expect(checkTarget("https://evil.test/hook", strict({ "evil.test": ["10.0.0.5"] }))).rejects.toThrow("resolves to 10.0.0.5");
    await expect(checkTarget("https://evil.test/hook", strict({ "evil.test": ["8.8.8.8", "::1"] }))).rejects.toThrow("::1");
    await expect(checkTarget("https://meta.test/", strict({ "meta.test": ["169.254.169.254"] }))).rejects.toThrow("169.254.169.254");
  });

  test("an unresolvable host is refused; a public one passes", async () => {
    await expect(checkTarget("https://nowhere.test/hook", strict())).rejects.toThrow("cannot be resolved");
    await expect(checkTarget("https://good.test/hook", strict({ "good.test": ["93.184.216.34"] }))).resolves.toBeInstanceOf(URL);
  });

  test("with the flag on, private targets pass without resolving", async () => {
    await expect(checkTarget("http://127.0.0.1/hook", { allowPrivate: true, resolve: fakeDns({}) })).resolves.toBeInstanceOf(URL);
    await expect(checkTarget("ftp://127.0.0.1/hook", { allowPrivate: true })).rejects.toThrow("http or https");
  });
});

describe("the API with ALLOW_PRIVATE_WEBHOOKS off", () => {
  let client: Client;
  let alice: TestUser;
  beforeAll(async () => {
    client = await testClient({ allowPrivateWebhooks: false });
    alice = await registerUser(client);
  });

  test.each([
    "http://127.0.0.1/hook", "http://10.0.0.1/hook", "http://169.254.169.254/latest/meta-data/", "http://[::1]/hook",
    "http://localhost:3000/hook", "http://192.168.0.10/hook",
  ])("set-webhook to %s is 400 with a clear error; bot creation too", async (url) => {
    const created = await client.post("/api/bots", { name: "Probe" }, alice.token);
    const bot = created.body.result;
    const res = await client.post(`/api/bots/${bot.id}/set-webhook`, { url }, bot.token);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/^url: .*(loopback|private|link-local)/);
    expect((await client.get(`/api/bots/${bot.id}/get-webhook-info`, bot.token)).body.result.url).toBe("");
    const withHook = await client.post("/api/bots", { name: "Probe", webhook_url: url }, alice.token);
    expect(withHook.status).toBe(400);
    expect(withHook.body.error).toStartWith("webhook_url: ");
  });
});

describe("at delivery time", () => {
  let receiver: Receiver;
  beforeAll(() => {
    receiver = startReceiver();
  });
  afterAll(() => receiver.stop());

  test("a host that now resolves to a private address is refused before any request", async () => {
    const port = new URL(receiver.url).port;
    const rebound = strict({ "rebound.test": ["127.0.0.1"] });
    const outcome = await postJson(`http://rebound.test:${port}/hook`, "{}", {}, { policy: rebound });
    expect(outcome.ok).toBe(false);
    expect(outcome.status).toBeUndefined();
    expect(outcome.error).toContain("refused");
    expect(receiver.received).toHaveLength(0);
  });

  test("redirects are not followed and count as failures", async () => {
    receiver.behave((req) => (req.path === "/moved" ? Response.redirect("http://169.254.169.254/", 302) : new Response("ok")));
    const outcome = await postJson(`${receiver.url}/moved`, "{}", {}, { policy: { allowPrivate: true } });
    expect(outcome).toMatchObject({ ok: false, status: 302 });
    expect(outcome.error).toContain("redirect 302 not followed");
    expect(receiver.received.map((r) => r.path)).toEqual(["/moved"]);
  });
});
