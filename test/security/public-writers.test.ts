// What a public writer (a widget key or a bot id, no token) can no longer do to someone
// else's conversation: take over a form's or another channel's chat, reuse another visitor's
// idempotency key, slip past a disabled channel, pin a chat with a far-future time, rename
// another chat's contact, or pose as a button press or a form. A channel's server can also be
// required to sign what it posts.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { signature } from "../../src/delivery/signature.ts";
import { createTestBot, MODE, registerUser, testClient, type Client, type TestBot, type TestUser } from "../support/harness.ts";
import { openStream } from "../web/sse.ts";

let client: Client;
let owner: TestUser;
let bot: TestBot;

beforeAll(async () => {
  client = await testClient();
  owner = await registerUser(client);
  bot = await createTestBot(client, owner, "Guarded bot");
});
afterAll(async () => {
  await client.platform.close();
});

const chat = () => `chat-${crypto.randomUUID()}`;
const visitor = (body: Record<string, unknown>) => client.post("/api/messages", { widget_key: bot.widget_key, text: "hi", ...body });
const history = (chatId: string, key = bot.widget_key) => client.get(`/api/messages?widget_key=${key}&chat_id=${encodeURIComponent(chatId)}`);
const detail = async (conversationId: string) => (await client.get(`/api/inbox/${conversationId}`, owner.token)).body.result;
const setChannel = (body: Record<string, unknown>) => client.patch(`/api/bots/${bot.id}/channels`, body, owner.token);

describe(`conversation identity is fixed at creation (${MODE})`, () => {
  test("a visitor who writes first to a form's chat id neither joins nor reads the form that follows", async () => {
    const email = `victim-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const formChat = `form:email:${email}`;
    const squat = await visitor({ chat_id: formChat, text: "waiting for you" });
    expect(squat.status).toBe(400);
    expect(squat.body.error).toContain("form:");

    const form = await client.post("/api/integrations/sitecms/forms-plugin", {
      integration_key: bot.integration_key, contact_email: email, contact_name: "Victim", contact_phone: "+44 20 7946 0000", fields: { card: "secret-field" },
    });
    expect(form.status).toBe(200);
    expect((await history(formChat)).body.result).toEqual([]);
    const stream = await openStream(client.app, `/api/messages/stream?widget_key=${bot.widget_key}&chat_id=${encodeURIComponent(formChat)}&since=0`);
    await stream.next((f) => f.event === "ready");
    await Bun.sleep(100);
    await stream.close();
    expect(JSON.stringify(stream.frames)).not.toContain("secret-field");
    expect((await detail(form.body.result.conversation_id)).messages).toHaveLength(1);
  });

  test("a chat another channel created cannot be written to, read or moved by naming another channel", async () => {
    const crmChat = chat();
    const first = await client.post("/api/messages", { bot_id: bot.id, chat_id: crmChat, channel: "crm", text: "order 42 details" });
    expect(first.status).toBe(200);
    for (const channel of ["widget", "web", "custom_api"]) {
      const intrude = await client.post("/api/messages", { bot_id: bot.id, chat_id: crmChat, channel, text: `from ${channel}` });
      expect(intrude.status).toBe(409);
      expect(JSON.stringify(intrude.body)).not.toContain(first.body.result.conversation_id);
    }
    const byKey = await visitor({ chat_id: crmChat, text: "via widget key" });
    expect(byKey.status).toBe(409);
    expect((await history(crmChat)).body.result).toEqual([]);
    const stored = await detail(first.body.result.conversation_id);
    expect(stored.channel).toBe("crm");
    expect(stored.messages.map((m: { text: string }) => m.text)).toEqual(["order 42 details"]);
  });

  test("a disabled channel is not bypassed by naming another one, and its history is closed", async () => {
    const guarded = await createTestBot(client, owner, "Switched-off widget");
    const chatId = chat();
    const opened = await client.post("/api/messages", { widget_key: guarded.widget_key, chat_id: chatId, text: "before" });
    expect(opened.status).toBe(200);
    expect((await client.patch(`/api/bots/${guarded.id}/channels`, { channel_type: "widget", is_active: false }, owner.token)).status).toBe(200);
    expect((await client.post("/api/messages", { widget_key: guarded.widget_key, chat_id: chatId, text: "again" })).status).toBe(403);
    const sideways = await client.post("/api/messages", { widget_key: guarded.widget_key, chat_id: chatId, channel: "web", text: "sideways" });
    expect(sideways.status).toBe(409);
    expect((await history(chatId, guarded.widget_key)).status).toBe(403);
    const stream = await openStream(client.app, `/api/messages/stream?widget_key=${guarded.widget_key}&chat_id=${chatId}`);
    expect(stream.status).toBe(403);
    expect((await detail(opened.body.result.conversation_id)).messages).toHaveLength(1);
  });
});

describe(`idempotency keys are per chat (${MODE})`, () => {
  test("repeating another visitor's client_message_id reveals nothing of their chat and makes a message of one's own", async () => {
    const key = `cm-${crypto.randomUUID()}`;
    const victimChat = chat();
    const victim = await visitor({ chat_id: victimChat, text: "my address is 1 Main St", metadata: { client_message_id: key } });
    const attackerChat = chat();
    const attacker = await visitor({ chat_id: attackerChat, text: "probe", metadata: { client_message_id: key } });
    expect(attacker.status).toBe(200);
    expect(attacker.body.result.chat_id).toBe(attackerChat);
    expect(attacker.body.result.conversation_id).not.toBe(victim.body.result.conversation_id);
    expect(JSON.stringify(attacker.body)).not.toContain(victimChat);
    expect((await history(attackerChat)).body.result.map((m: { text: string }) => m.text)).toEqual(["probe"]);
  });

  test("claiming a key first (header or metadata) does not swallow the victim's later message", async () => {
    for (const via of ["metadata", "header"] as const) {
      const key = `idem-${crypto.randomUUID()}`;
      const attackerChat = chat();
      const victimChat = chat();
      const send = (chatId: string, text: string) =>
        via === "header"
          ? client.request("POST", "/api/messages", { body: { widget_key: bot.widget_key, chat_id: chatId, text }, headers: { "idempotency-key": key } })
          : visitor({ chat_id: chatId, text, metadata: { client_message_id: key } });
      await send(attackerChat, "claimed");
      const victim = await send(victimChat, "please call me back");
      expect(victim.body.result.chat_id).toBe(victimChat);
      expect((await history(victimChat)).body.result.map((m: { text: string }) => m.text)).toEqual(["please call me back"]);
      expect((await history(attackerChat)).body.result.map((m: { text: string }) => m.text)).toEqual(["claimed"]);
      // The victim's own retry is still a repeat.
      const retry = await send(victimChat, "please call me back");
      expect(retry.body.result.message_id).toBe(victim.body.result.message_id);
    }
  });
});

describe(`visitor input is bounded (${MODE})`, () => {
  test("a far-future timestamp is replaced by the server's time (kept in metadata) and does not pin the chat", async () => {
    const before = Date.now();
    const chatId = chat();
    const res = await visitor({ chat_id: chatId, text: "from the future", timestamp: 253402300799 });
    expect(res.status).toBe(200);
    const [message] = (await history(chatId)).body.result;
    expect(Date.parse(message.created_at)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(message.created_at)).toBeLessThanOrEqual(Date.now() + 1000);
    expect(message.metadata.client_timestamp).toBe(253402300799);
    await visitor({ chat_id: chat(), text: "a later, honest visitor" });
    const list = (await client.get(`/api/inbox?bot_id=${bot.id}&limit=1`, owner.token)).body.result;
    const top = list.items ?? list;
    expect(top[0].id).not.toBe(res.body.result.conversation_id);
  });

  test("a time a few seconds ahead or in the past is kept as given", async () => {
    const chatId = chat();
    const soon = Math.floor(Date.now() / 1000) + 30;
    await visitor({ chat_id: chatId, text: "a", timestamp: soon });
    await visitor({ chat_id: chatId, text: "b", timestamp: 1700000000 });
    const times = (await history(chatId)).body.result.map((m: { created_at: string }) => Date.parse(m.created_at));
    expect(times).toEqual([soon * 1000, 1700000000 * 1000]);
  });

  test("metadata only the server writes is refused from a public writer", async () => {
    for (const key of ["callback_query", "form", "email", "client_timestamp"]) {
      const res = await visitor({ chat_id: chat(), metadata: { [key]: { id: "x", data: "buy" } } });
      expect(res.status).toBe(400);
      expect(res.body.error).toContain(`metadata.${key}`);
    }
    expect((await visitor({ chat_id: chat(), metadata: { page_url: "https://shop.example/" } })).status).toBe(200);
  });

  test("claiming another visitor's user.id does not rename their contact", async () => {
    const userId = `vip-${crypto.randomUUID()}`;
    const victim = await visitor({ chat_id: chat(), user: { id: userId, first_name: "Victoria", last_name: "Real" } });
    const attacker = await visitor({ chat_id: chat(), user: { id: userId, first_name: "Mallory", last_name: "Fake" } });
    expect(attacker.status).toBe(200);
    const contact = (await detail(victim.body.result.conversation_id)).contact;
    expect(contact).toMatchObject({ first_name: "Victoria", last_name: "Real" });
    // In their own chat the same visitor still completes their details.
    const own = chat();
    const first = await visitor({ chat_id: own, user: { id: `self-${userId}`, first_name: "Sam" } });
    await visitor({ chat_id: own, user: { id: `self-${userId}`, last_name: "Lee" } });
    expect((await detail(first.body.result.conversation_id)).contact).toMatchObject({ first_name: "Sam", last_name: "Lee" });
  });
});

describe(`signed requests for server-to-server channels (${MODE})`, () => {
  const secret = "channel-secret-for-tests";
  const signedPost = (path: string, body: unknown, sign: { secret?: string; at?: number } = {}) => {
    const raw = JSON.stringify(body);
    const at = sign.at ?? Math.floor(Date.now() / 1000);
    const headers: Record<string, string> = sign.secret ? { "x-signature": signature(sign.secret, at, raw), "x-signature-timestamp": String(at) } : {};
    return client.request("POST", path, { raw, headers });
  };

  test("off by default: an unsigned request to a callback channel is accepted", async () => {
    const res = await client.post("/api/messages", { bot_id: bot.id, chat_id: chat(), channel: "mobile_app", text: "unsigned" });
    expect(res.status).toBe(200);
  });

  test("with require_signature only a fresh request signed with the channel's secret gets in", async () => {
    const signedBot = await createTestBot(client, owner, "Signed CRM");
    const patch = (config: Record<string, unknown>) => client.patch(`/api/bots/${signedBot.id}/channels`, { channel_type: "crm", config }, owner.token);
    expect((await patch({ require_signature: true })).status).toBe(400);
    expect((await patch({ secret, require_signature: true })).status).toBe(200);
    const body = { bot_id: signedBot.id, chat_id: chat(), channel: "crm", text: "signed" };
    const now = Math.floor(Date.now() / 1000);
    const unsigned = await signedPost("/api/messages", body);
    expect(unsigned.status).toBe(401);
    expect(unsigned.body.error).toContain("requires signed requests");
    expect((await signedPost("/api/messages", body, { secret: "wrong-secret-value" })).status).toBe(401);
    expect((await signedPost("/api/messages", body, { secret, at: now - 3600 })).status).toBe(401);
    const good = await signedPost("/api/messages", body, { secret });
    expect(good.status).toBe(200);
    // The widget and other channels of the bot are untouched by the CRM's setting.
    expect((await client.post("/api/messages", { widget_key: signedBot.widget_key, chat_id: chat(), text: "widget" })).status).toBe(200);
  });

  test("the form plugin can require signatures too", async () => {
    const formBot = await createTestBot(client, owner, "Signed forms");
    expect((await client.patch(`/api/bots/${formBot.id}/channels`, { channel_type: "sitecms", config: { secret, require_signature: true } }, owner.token)).status).toBe(200);
    const body = { integration_key: formBot.integration_key, contact_email: `lead-${crypto.randomUUID().slice(0, 6)}@example.com` };
    expect((await signedPost("/api/integrations/sitecms/forms-plugin", body)).status).toBe(401);
    expect((await signedPost("/api/integrations/sitecms/forms-plugin", body, { secret })).status).toBe(200);
  });

  test("a signed sender is believed about its users: it may update a contact across chats", async () => {
    const crmBot = await createTestBot(client, owner, "Trusted CRM");
    await client.patch(`/api/bots/${crmBot.id}/channels`, { channel_type: "crm", config: { secret } }, owner.token);
    const userId = `crm-user-${crypto.randomUUID()}`;
    const first = await signedPost("/api/messages", { bot_id: crmBot.id, chat_id: chat(), channel: "crm", text: "a", user: { id: userId, first_name: "Old" } }, { secret });
    await signedPost("/api/messages", { bot_id: crmBot.id, chat_id: chat(), channel: "crm", text: "b", user: { id: userId, first_name: "New" } }, { secret });
    expect((await detail(first.body.result.conversation_id)).contact.first_name).toBe("New");
  });
});

describe(`channel PATCH merges (${MODE})`, () => {
  test("a partial widget update keeps allowed_origins: other origins stay refused", async () => {
    expect((await setChannel({ channel_type: "widget", config: { title: "Hi", allowed_origins: ["https://shop.example"] } })).status).toBe(200);
    const patched = await setChannel({ channel_type: "widget", config: { color: "#112233" } });
    expect(patched.body.result.config).toMatchObject({ title: "Hi", color: "#112233", allowed_origins: ["https://shop.example"] });
    const foreign = await client.request("POST", "/api/messages", {
      body: { widget_key: bot.widget_key, chat_id: chat(), text: "x" }, headers: { origin: "https://evil.example" },
    });
    expect(foreign.status).toBe(403);
    // A key set to null is removed on purpose.
    const cleared = await setChannel({ channel_type: "widget", config: { allowed_origins: null } });
    expect(cleared.body.result.config.allowed_origins).toBeUndefined();
    expect(cleared.body.result.config.title).toBe("Hi");
  });

  test("a callback's secret is kept when only the URL changes", async () => {
    const cbBot = await createTestBot(client, owner, "Callback secret");
    const patch = (config: Record<string, unknown>) => client.patch(`/api/bots/${cbBot.id}/channels`, { channel_type: "custom_api", config }, owner.token);
    await patch({ callback_url: "https://crm.example/a", secret: "keep-this-secret" });
    const moved = await patch({ callback_url: "https://crm.example/b" });
    expect(moved.body.result.config).toMatchObject({ callback_url: "https://crm.example/b", secret: "keep-this-secret" });
    const replaced = await patch({ secret: "a-new-secret-value" });
    expect(replaced.body.result.config).toMatchObject({ callback_url: "https://crm.example/b", secret: "a-new-secret-value" });
  });
});
