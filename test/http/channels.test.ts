import { beforeAll, describe, expect, test } from "bun:test";
import { createTestBot, registerUser, testClient, type Client, type TestBot, type TestUser } from "../support/harness.ts";

const ALL_TYPES = ["web", "website", "widget", "sitecms", "crm", "email", "mobile_app", "custom_api"];

let client: Client;
let alice: TestUser;
let bob: TestUser;
let bot: TestBot;
beforeAll(async () => {
  client = await testClient();
  alice = await registerUser(client);
  bob = await registerUser(client);
  bot = await createTestBot(client, alice);
});

describe("channels", () => {
  test("a new bot lists all eight types, active with empty config", async () => {
    const res = await client.get(`/api/bots/${bot.id}/channels`, alice.token);
    expect(res.status).toBe(200);
    expect(res.body.result.map((c: { channel_type: string }) => c.channel_type)).toEqual(ALL_TYPES);
    for (const c of res.body.result) expect(c).toMatchObject({ is_active: true, config: {} });
  });

  test("PATCH upserts one channel and GET shows it", async () => {
    const own = await createTestBot(client, alice);
    const res = await client.patch(
      `/api/bots/${own.id}/channels`,
      { channel_type: "widget", is_active: true, config: { title: "Hi", color: "#112233", position: "left" } },
      alice.token,
    );
    expect(res.status).toBe(200);
    expect(res.body.result).toMatchObject({ channel_type: "widget", is_active: true, config: { title: "Hi" } });
    const off = await client.patch(`/api/bots/${own.id}/channels`, { channel_type: "widget", is_active: false }, alice.token);
    expect(off.body.result).toMatchObject({ is_active: false, config: { title: "Hi", color: "#112233" } });
    const list = await client.get(`/api/bots/${own.id}/channels`, alice.token);
    const widget = list.body.result.find((c: { channel_type: string }) => c.channel_type === "widget");
    expect(widget).toMatchObject({ is_active: false, config: { title: "Hi" } });
    expect(widget.updated_at).toBeString();
  });

  test.each([
    [{ channel_type: "telegram" }, "channel_type"],
    [{}, "channel_type"],
    [{ channel_type: "web", is_active: "yes" }, "is_active"],
    [{ channel_type: "web", config: "nope" }, "config"],
    [{ channel_type: "custom_api", config: { callback_url: "ftp://x.example/cb" } }, "callback_url"],
    [{ channel_type: "crm", config: { callback_url: "not a url" } }, "callback_url"],
    [{ channel_type: "widget", config: { color: "red" } }, "color"],
    [{ channel_type: "widget", config: { allowed_origins: ["https://ok.example", "javascript:alert(1)"] } }, "allowed_origins"],
  ])("PATCH %j is 400 naming %s", async (body, field) => {
    const res = await client.patch(`/api/bots/${bot.id}/channels`, body, alice.token);
    expect(res.status).toBe(400);
    expect(res.body.ok).toBe(false);
    expect(res.body.error).toContain(field);
  });

  test("a valid callback_url is accepted on a callback channel", async () => {
    const res = await client.patch(
      `/api/bots/${bot.id}/channels`,
      { channel_type: "custom_api", config: { callback_url: "https://crm.example/hook", secret: "s3cret-value" } },
      alice.token,
    );
    expect(res.status).toBe(200);
    expect(res.body.result.config.callback_url).toBe("https://crm.example/hook");
  });

  test("a callback_url pointing at a private address is refused when saved", async () => {
    const strict = await testClient({ allowPrivateWebhooks: false });
    const user = await registerUser(strict);
    const own = await createTestBot(strict, user);
    for (const url of ["http://127.0.0.1:9/cb", "http://10.1.2.3/cb", "http://169.254.169.254/latest", "http://[::1]/cb", "http://localhost/cb"]) {
      const res = await strict.patch(`/api/bots/${own.id}/channels`, { channel_type: "custom_api", config: { callback_url: url } }, user.token);
      expect(res.status).toBe(400);
      expect(res.body.error).toContain("config.callback_url");
    }
    await strict.platform.close();
  });

  test("another user's bot channels are 404 for reading and writing", async () => {
    expect((await client.get(`/api/bots/${bot.id}/channels`, bob.token)).status).toBe(404);
    const write = await client.patch(`/api/bots/${bot.id}/channels`, { channel_type: "web", is_active: false }, bob.token);
    expect(write.status).toBe(404);
    const list = await client.get(`/api/bots/${bot.id}/channels`, alice.token);
    expect(list.body.result.find((c: { channel_type: string }) => c.channel_type === "web").is_active).toBe(true);
  });

  test("no token is 401", async () => {
    expect((await client.get(`/api/bots/${bot.id}/channels`)).status).toBe(401);
  });
});
