// Tenant isolation over every operation a request without a user token can reach (public:
// widget, site, channel servers; or a bot token), beside the user-token walk in
// tenant-isolation.test.ts.
import { createHmac } from "node:crypto";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestBot, MODE, registerUser, testClient, type Client, type TestBot, type TestUser } from "../support/harness.ts";
import { sampleOf } from "../support/openapi-sample.ts";
import { openStream } from "../web/sse.ts";
import { signature } from "../../src/delivery/signature.ts";
import { operationsOf, publicOperationsOf, resolverOf, type Operation } from "./tenant-support.ts";

let client: Client;
let doc: any;
let resolve: (node: any) => any;
let owner: TestUser;

beforeAll(async () => {
  client = await testClient();
  doc = (await client.get("/swagger/json")).body;
  resolve = resolverOf(doc);
  owner = await registerUser(client);
});

afterAll(async () => {
  await client.platform.close();
});

/**
 * Every operation a request without a user token can reach (public: widget, site, channel
 * servers; or a bot token) is attacked by a second visitor, using the same public widget
 * key with chat ids they could guess or learn, and by a second bot's keys. Nothing of the
 * first's data may come back, and nothing of it may change. A public operation added later
 * fails the first test until it has an attack here.
 */
describe(`tenant isolation over every public and bot-token operation (${MODE})`, () => {
  let victim: TestBot;
  let attacker: TestBot;
  const v: Record<string, string> = {};
  let victimSecrets: string[];

  beforeAll(async () => {
    victim = await createTestBot(client, owner, "Public victim");
    attacker = await createTestBot(client, await registerUser(client), "Public attacker");
    // The CRM's server signs what it posts, as the cabinet recommends (unsigned, anyone who knows a chat id could write there).
    const crmConfig = { callback_url: "https://crm.example/in", secret: "victim-callback-secret", require_signature: true };
    await client.patch(`/api/bots/${victim.id}/channels`, { channel_type: "crm", config: crmConfig }, owner.token);
    const marker = `visitor-${crypto.randomUUID()}`;
    v.widgetChat = `w_${crypto.randomUUID()}`;
    v.crmChat = `crm-${Math.floor(Math.random() * 1e6)}`;
    v.email = `victim-${crypto.randomUUID().slice(0, 8)}@example.com`;
    v.clientId = `cm-${crypto.randomUUID()}`;
    const widget = await client.post("/api/messages", { widget_key: victim.widget_key, chat_id: v.widgetChat, text: marker, metadata: { client_message_id: v.clientId } });
    const crmBody = JSON.stringify({ bot_id: victim.id, chat_id: v.crmChat, channel: "crm", text: `crm-${marker}`, user: { id: "vip-1", first_name: "Victoria" } });
    const at = Math.floor(Date.now() / 1000);
    const crm = await client.request("POST", "/api/messages", {
      raw: crmBody, headers: { "x-signature": signature(crmConfig.secret, at, crmBody), "x-signature-timestamp": String(at) },
    });
    const form = await client.post("/api/integrations/sitecms/forms-plugin", { integration_key: victim.integration_key, contact_email: v.email, fields: { note: `form-${marker}` } });
    await client.request("POST", `/api/bots/${victim.id}/set-my-commands`, { body: { commands: [{ command: "start", description: "Start" }] }, token: victim.token });
    const sent = await client.request("POST", `/api/bots/${victim.id}/send-message`, {
      body: { chat_id: v.crmChat, text: `reply-${marker}`, reply_markup: { inline_keyboard: [[{ text: "Pay", callback_data: "pay" }]] } }, token: victim.token,
    });
    v.botMessage = String(sent.body.result.message_id);
    // A file the visitor sent: its bytes are theirs alone.
    const upload = new FormData();
    upload.append("widget_key", victim.widget_key);
    upload.append("chat_id", v.widgetChat);
    upload.append("file", new Blob([`file-${marker}`], { type: "text/plain" }), "note.txt");
    const file = await (await client.app.handle(new Request("http://test.local/api/files", { method: "POST", body: upload }))).json();
    v.fileId = file.result.file_id;
    await client.post("/api/messages", { widget_key: victim.widget_key, chat_id: v.widgetChat, text: "see file", attachments: [v.fileId] });
    // A verified user's chat: only the site's hash opens it.
    const identitySecret = (await client.get(`/api/bots/${victim.id}/identity-secret`, owner.token)).body.result.identity_secret;
    const verified = await client.post("/api/messages", {
      widget_key: victim.widget_key, user_id: "vip-2", user_hash: createHmac("sha256", identitySecret).update("vip-2").digest("hex"), text: `verified-${marker}`,
    });
    v.conversations = [widget, crm, form, verified].map((r) => r.body.result.conversation_id).join(",");
    // Not the e-mail: attackers type it in themselves, and see it echoed in their own chat ids.
    victimSecrets = [marker, victim.token, victim.integration_key, "victim-callback-secret", widget.body.result.conversation_id,
      crm.body.result.conversation_id, form.body.result.conversation_id, "Victoria", identitySecret, verified.body.result.conversation_id];
  });

  /** What the owner sees of the victim's conversations, commands and updates: must not change. */
  const snapshot = async () => JSON.stringify(await Promise.all([
    ...v.conversations!.split(",").map(async (id) => {
      const d = (await client.get(`/api/inbox/${id}`, owner.token)).body.result;
      return [d.channel, d.status, d.handled_by, d.contact, d.messages.map((m: any) => [m.message_id, m.text, m.edited_at, m.deleted_at, m.reply_markup])];
    }),
    client.request("GET", `/api/bots/${victim.id}/get-my-commands`, { token: victim.token }).then((r) => r.body),
    // Without the pending count: visitors opening chats of their own add updates, rightly.
    client.request("GET", `/api/bots/${victim.id}/get-webhook-info`, { token: victim.token }).then((r) => ({ ...r.body.result, pending_update_count: 0 })),
  ]));

  const pub = (body: Record<string, unknown>) => ({ widget_key: victim.widget_key, text: "x", ...body });
  const mine = () => `w_${crypto.randomUUID()}`;
  type Attack = [method: string, url: string, body?: unknown, token?: string];
  /** Requests of a second visitor (same public key, chats not theirs) and of a second bot. */
  const PUBLIC_ATTACKS: Record<string, () => Attack[]> = {
    "get /healthz": () => [["GET", "/healthz"]],
    "get /readyz": () => [["GET", "/readyz"]],
    "get /metrics": () => [["GET", "/metrics"]],
    "post /api/auth/register": () => [["POST", "/api/auth/register", { email: owner.email, password: "guessing-1" }]],
    "post /api/auth/login": () => [["POST", "/api/auth/login", { email: owner.email, password: "guessing-1" }]],
    "get /api/auth/password-reset": () => [["GET", "/api/auth/password-reset"]],
    "post /api/auth/password-reset": () => [["POST", "/api/auth/password-reset", { email: owner.email }]],
    "post /api/auth/password-reset/confirm": () => [["POST", "/api/auth/password-reset/confirm", { token: "guessed-reset-token", password: "guessing-1" }]],
    "get /api/messages": () => [v.crmChat!, `form:email:${v.email}`].flatMap((chat): Attack[] => [
      ["GET", `/api/messages?widget_key=${victim.widget_key}&chat_id=${encodeURIComponent(chat)}`],
      ["GET", `/api/messages?bot_id=${victim.id}&chat_id=${encodeURIComponent(chat)}&channel=crm`],
    ]).concat([
      ["GET", `/api/messages?widget_key=${attacker.widget_key}&chat_id=${v.widgetChat}`],
      ["GET", `/api/messages?widget_key=${victim.widget_key}&chat_id=verified:vip-2`],
      ["GET", `/api/messages?widget_key=${victim.widget_key}&chat_id=verified:vip-2&user_id=vip-2&user_hash=${"0".repeat(64)}`],
    ]),
    "post /api/messages": () => [
      ["POST", "/api/messages", pub({ chat_id: v.crmChat })],
      ["POST", "/api/messages", pub({ chat_id: v.crmChat, channel: "crm", text: "forged", user: { id: "vip-1", first_name: "Mallory" } })],
      ["POST", "/api/messages", pub({ chat_id: `form:email:${v.email}` })],
      ["POST", "/api/messages", pub({ chat_id: mine(), metadata: { client_message_id: v.clientId } })],
      ["POST", "/api/messages", pub({ chat_id: mine(), user: { id: "vip-1", first_name: "Mallory" } })],
      ["POST", "/api/messages", pub({ chat_id: mine(), metadata: { callback_query: { id: "1", data: "pay", message_id: v.botMessage } } })],
      ["POST", "/api/messages", { widget_key: attacker.widget_key, chat_id: v.widgetChat, text: "x", metadata: { client_message_id: v.clientId } }],
      ["POST", "/api/messages", pub({ chat_id: "verified:vip-2" })],
      ["POST", "/api/messages", pub({ user_id: "vip-2", user_hash: "0".repeat(64) })],
    ],
    "get /api/widget/identity": () => [
      ["GET", `/api/widget/identity?widget_key=${victim.widget_key}&user_id=vip-2&user_hash=${"0".repeat(64)}`],
      ["GET", `/api/widget/identity?bot_id=${victim.id}&user_id=vip-2&user_hash=not-a-hash`],
    ],
    "post /api/messages/callback-query": () => [
      ["POST", "/api/messages/callback-query", pub({ chat_id: mine(), message_id: v.botMessage, data: "pay" })],
      ["POST", "/api/messages/callback-query", pub({ chat_id: v.crmChat, message_id: v.botMessage, data: "pay" })],
      ["POST", "/api/messages/callback-query", { widget_key: attacker.widget_key, chat_id: v.crmChat, message_id: v.botMessage, data: "pay" }],
    ],
    "post /api/messages/rating": () => [
      ["POST", "/api/messages/rating", { widget_key: victim.widget_key, chat_id: v.crmChat, rating: 1 }],
      ["POST", "/api/messages/rating", { widget_key: attacker.widget_key, chat_id: v.widgetChat, rating: 1 }],
      ["POST", "/api/messages/rating", { widget_key: victim.widget_key, chat_id: "verified:vip-2", rating: 1 }],
      ["POST", "/api/messages/rating", { widget_key: victim.widget_key, chat_id: "verified:vip-2", rating: 1, user_id: "vip-2", user_hash: "0".repeat(64) }],
    ],
    "get /api/widget/config": () => [["GET", `/api/widget/config?widget_key=${victim.widget_key}`], ["GET", `/api/widget/config?widget_key=${attacker.widget_key}`]],
    "post /api/integrations/sitecms/forms-plugin": () => [
      ["POST", "/api/integrations/sitecms/forms-plugin", { integration_key: attacker.integration_key, contact_email: v.email }],
    ],
    "post /api/files": () => [v.crmChat!, `form:email:${v.email}`, v.widgetChat!].map((chat): Attack => {
      const form = new FormData();
      form.append("widget_key", chat === v.widgetChat ? attacker.widget_key : victim.widget_key);
      form.append("chat_id", chat);
      form.append("file", new Blob(["an attacker's note"], { type: "text/plain" }), "note.txt");
      return ["POST", "/api/files", form];
    }),
    "get /api/files/{file_id}": () => [
      ["GET", `/api/files/${v.fileId}`],
      ["GET", `/api/files/${v.fileId}?expires=4102444800&sig=${"0".repeat(64)}`],
    ],
    "get /api/messages/stream": () => [
      ["GET", `/api/messages/stream?widget_key=${victim.widget_key}&chat_id=${v.crmChat}&since=0`],
      ["GET", `/api/messages/stream?widget_key=${victim.widget_key}&chat_id=${encodeURIComponent(`form:email:${v.email}`)}&since=0`],
      ["GET", `/api/messages/stream?widget_key=${attacker.widget_key}&chat_id=${v.widgetChat}&since=0`],
      ["GET", `/api/messages/stream?widget_key=${victim.widget_key}&chat_id=verified:vip-2&since=0`],
    ],
  };

  const botOperations = () => operationsOf(doc, "botBearerAuth");
  const publicOperations = () => publicOperationsOf(doc);

  /** A second bot's token, aimed at the victim bot's id, and at its own id with the victim's chat and message. */
  function botAttacks({ method, path, op }: Operation): Attack[] {
    const schema = op.requestBody?.content?.["application/json"]?.schema;
    const sample = (schema ? sampleOf(schema, resolve) : undefined) as Record<string, unknown> | undefined;
    const body = sample && { ...sample, ...("chat_id" in sample ? { chat_id: v.crmChat } : {}), ...("message_id" in sample ? { message_id: v.botMessage } : {}) };
    const query = (op.parameters ?? []).map(resolve).some((p: any) => p.in === "query" && p.name === "chat_id") ? `?chat_id=${v.crmChat}` : "";
    const at = (id: string) => `${path.replace("{id}", id)}${query}`;
    const attacks: Attack[] = [[method.toUpperCase(), at(attacker.id), body, attacker.token]];
    if (path.includes("{id}")) attacks.push([method.toUpperCase(), at(victim.id), body, attacker.token]);
    return attacks;
  }

  async function run([method, url, body, token]: Attack) {
    if (url.includes("/stream")) {
      const s = await openStream(client.app, url);
      if (s.status === 200) await s.next((f) => f.event === "ready");
      await Bun.sleep(50);
      await s.close();
      return { status: s.status, text: JSON.stringify([s.frames, s.json ?? null]) };
    }
    if (body instanceof FormData) {
      const res = await client.app.handle(new Request(`http://test.local${url}`, { method, body }));
      return { status: res.status, text: await res.text() };
    }
    const res = await client.request(method, url, { body, token });
    return { status: res.status, text: typeof res.body === "string" ? res.body : JSON.stringify(res.body) };
  }

  test("every public operation has an attack here", () => {
    expect(publicOperations().filter((name) => !PUBLIC_ATTACKS[name])).toEqual([]);
    expect(botOperations().length).toBeGreaterThan(10);
  });

  test("a second visitor or a second bot reads nothing of the first's conversations and changes nothing", async () => {
    const before = await snapshot();
    const failures: string[] = [];
    const attacks = [...Object.values(PUBLIC_ATTACKS).flatMap((make) => make()), ...botOperations().flatMap(botAttacks)];
    for (const attack of attacks) {
      const { status, text } = await run(attack);
      const label = `${attack[0]} ${attack[1]} → ${status}`;
      if (status >= 500) failures.push(`${label}: server error`);
      const seen = victimSecrets.filter((s) => text.includes(s));
      if (seen.length) failures.push(`${label}: leaked ${seen.join(", ")}`);
      if (attack[3] && attack[1].includes(victim.id) && status < 400) failures.push(`${label}: another bot's token was accepted`);
    }
    expect(failures).toEqual([]);
    expect(await snapshot()).toBe(before);
  });
});
