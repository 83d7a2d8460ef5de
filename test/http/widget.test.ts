import { beforeAll, describe, expect, test } from "bun:test";
import { createTestBot, registerUser, testClient, type Client, type TestUser } from "../support/harness.ts";

let client: Client;
let alice: TestUser;
beforeAll(async () => {
  client = await testClient();
  alice = await registerUser(client);
});

describe("widget config", () => {
  test("defaults come from the bot; channel config overrides them", async () => {
    const bot = await createTestBot(client, alice, "Helpful");
    const plain = await client.get(`/api/widget/config?widget_key=${bot.widget_key}`);
    expect(plain.status).toBe(200);
    expect(plain.body.result).toEqual({
      bot_id: bot.id, title: "Helpful", subtitle: "", greeting: null, color: "#2563eb", position: "right", channel: "widget",
    });
    await client.patch(`/api/bots/${bot.id}/channels`, {
      channel_type: "widget", config: { title: "Ask us", subtitle: "we reply fast", greeting: "Hi!", color: "#ff0000", position: "left" },
    }, alice.token);
    const custom = await client.get(`/api/widget/config?widget_key=${bot.widget_key}`);
    expect(custom.body.result).toMatchObject({ title: "Ask us", subtitle: "we reply fast", greeting: "Hi!", color: "#ff0000", position: "left" });
  });

  test("inactive widget channel is 403, unknown key 404, missing key 400", async () => {
    const bot = await createTestBot(client, alice);
    await client.patch(`/api/bots/${bot.id}/channels`, { channel_type: "widget", is_active: false }, alice.token);
    expect((await client.get(`/api/widget/config?widget_key=${bot.widget_key}`)).status).toBe(403);
    expect((await client.get(`/api/widget/config?widget_key=wk_unknown`)).status).toBe(404);
    const missing = await client.get(`/api/widget/config`);
    expect(missing.status).toBe(400);
    expect(missing.body.error).toContain("widget_key");
  });
});
