// The special-purpose ranges the SSRF guard missed (IPv4-translated
// ::ffff:0:0:0/96, Teredo and the rest of 2001::/23, documentation and discard ranges) are
// refused wherever a URL is accepted: set-webhook, facade setWebhook, callback_url, push.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { checkTarget, forbiddenAddress, resolveTarget } from "../../src/delivery/ssrf.ts";
import { browserKeys } from "../push/webpush.ts";
import { createTestBot, registerUser, testClient, type Client, type TestBot, type TestUser } from "../support/harness.ts";

const REFUSED = [
  "::ffff:0:127.0.0.1", "::ffff:0:7f00:1", "::ffff:0:8.8.8.8", // IPv4-translated (SIIT)
  "2001::1", "2001:0:4136:e378:8000:63bf:3fff:fdd2", "2001:2::1", "2001:10::1", // Teredo and other 2001::/23
  "2001:db8::1", "3fff::1", "100::1", "64:ff9b:1::1", "5f00::1",
  "64:ff9b::127.0.0.1", "64:ff9b::10.0.0.1", "2002:7f00:1::1",
  "192.0.2.1", "198.51.100.7", "203.0.113.9", "192.88.99.1",
];
const PUBLIC = ["8.8.8.8", "1.1.1.1", "2001:4860:4860::8888", "2606:4700:4700::1111", "64:ff9b::8.8.8.8", "::ffff:8.8.8.8"];

describe("special-purpose ranges", () => {
  test.each(REFUSED)("%s is refused", (ip) => {
    expect(forbiddenAddress(ip)).toBeString();
  });
  test.each(PUBLIC)("%s is public", (ip) => {
    expect(forbiddenAddress(ip)).toBeUndefined();
  });

  test("URL forms with those addresses are refused; a name resolving to Teredo too", async () => {
    const strict = { allowPrivate: false, resolve: async (host: string) => (host === "teredo.test" ? ["2001:0:53aa:64c::1"] : []) };
    for (const url of ["http://[::ffff:0:127.0.0.1]/", "http://[::ffff:0:7f00:1]:8080/x", "http://[2001:0::1]/", "https://teredo.test/hook"]) {
      await expect(checkTarget(url, strict)).rejects.toThrow(/address/);
    }
  });

  test("resolveTarget hands back exactly the addresses it checked", async () => {
    const policy = { allowPrivate: false, resolve: async () => ["93.184.216.34", "2606:2800:220:1::1"] };
    expect((await resolveTarget("https://example.test/x", policy)).addresses).toEqual(["93.184.216.34", "2606:2800:220:1::1"]);
  });
});

describe("every place a URL is accepted", () => {
  let client: Client;
  let user: TestUser;
  let bot: TestBot;
  beforeAll(async () => {
    client = await testClient({ allowPrivateWebhooks: false });
    user = await registerUser(client);
    bot = await createTestBot(client, user);
  });
  afterAll(() => client.platform.close());

  test.each(["http://[::ffff:0:127.0.0.1]/", "http://[2001:0::1]/hook", "http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/"])("%s", async (url) => {
    const webhook = await client.request("POST", `/api/bots/${bot.id}/set-webhook`, { body: { url }, token: bot.token });
    expect(webhook.status).toBe(400);
    expect(webhook.body.error).toStartWith("url: ");
    const facade = await client.request("POST", `/bot${bot.token}/setWebhook`, { body: { url } });
    expect(facade.status).toBe(400);
    expect(facade.body.ok).toBe(false);
    const callback = await client.patch(`/api/bots/${bot.id}/channels`, { channel_type: "custom_api", config: { callback_url: url } }, user.token);
    expect(callback.status).toBe(400);
    const { p256dh, auth } = await browserKeys();
    const push = await client.post("/api/push/subscriptions", { endpoint: url.replace("http:", "https:"), keys: { p256dh, auth } }, user.token);
    expect(push.status).toBe(400);
    expect(push.body.error).toStartWith("endpoint: ");
  });
});
