// Verified widget visitors: the owner's identity secret (read, rotate, owner only, sealed at
// rest), the hash check on every public call that names a chat, one conversation per verified
// user, the contact's verified flag, and an unverified visitor kept out of a verified chat.
import { createHmac } from "node:crypto";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestBot, MODE, registerUser, testClient, type Client, type TestBot, type TestUser } from "../support/harness.ts";
import { openStream } from "../web/sse.ts";

let client: Client;
let owner: TestUser;
let bot: TestBot;
let secret: string;

const hash = (userId: string, key = secret) => createHmac("sha256", key).update(userId).digest("hex");
const send = (body: Record<string, unknown>) => client.post("/api/messages", { widget_key: bot.widget_key, text: "hi", ...body });
const qs = (params: Record<string, string>) => new URLSearchParams({ widget_key: bot.widget_key, ...params }).toString();
const history = (params: Record<string, string>) => client.get(`/api/messages?${qs(params)}`);
const detail = async (conversationId: string) => (await client.get(`/api/inbox/${conversationId}`, owner.token)).body.result;

beforeAll(async () => {
  client = await testClient();
  owner = await registerUser(client);
  bot = await createTestBot(client, owner, "Verified bot");
  const read = await client.get(`/api/bots/${bot.id}/identity-secret`, owner.token);
  expect(read.status).toBe(200);
  secret = read.body.result.identity_secret;
});
afterAll(async () => {
  await client.platform.close();
});

describe(`the identity secret (${MODE})`, () => {
  test("the owner reads the same secret twice; it is stored sealed, not in clear", async () => {
    expect(secret.length).toBeGreaterThanOrEqual(40);
    const again = await client.get(`/api/bots/${bot.id}/identity-secret`, owner.token);
    expect(again.body.result.identity_secret).toBe(secret);
    const rows = await client.platform.db.query<{ secret_encrypted: string }>(`select secret_encrypted from bot_identity_secrets where bot_id = $1`, [bot.id]);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.secret_encrypted).not.toContain(secret);
  });

  test("only the owner reads or rotates it: an operator gets 403, a stranger 404, no token 401", async () => {
    const operator = await registerUser(client);
    const invite = await client.post(`/api/bots/${bot.id}/invites`, { email: operator.email }, owner.token);
    expect((await client.post("/api/invites/accept", { code: invite.body.result.code }, operator.token)).status).toBe(200);
    expect((await client.get(`/api/bots/${bot.id}/identity-secret`, operator.token)).status).toBe(403);
    expect((await client.post(`/api/bots/${bot.id}/identity-secret/rotate`, {}, operator.token)).status).toBe(403);
    const stranger = await registerUser(client);
    expect((await client.get(`/api/bots/${bot.id}/identity-secret`, stranger.token)).status).toBe(404);
    expect((await client.get(`/api/bots/${bot.id}/identity-secret`)).status).toBe(401);
    const shown = JSON.stringify((await client.get(`/api/bots/${bot.id}`, operator.token)).body);
    expect(shown).not.toContain(secret);
  });

  test("rotating refuses hashes made with the old secret at once", async () => {
    const other = await createTestBot(client, owner, "Rotating bot");
    const old = (await client.get(`/api/bots/${other.id}/identity-secret`, owner.token)).body.result.identity_secret;
    const check = (key: string) => client.get(`/api/widget/identity?widget_key=${other.widget_key}&user_id=u1&user_hash=${hash("u1", key)}`);
    expect((await check(old)).status).toBe(200);
    const rotated = await client.post(`/api/bots/${other.id}/identity-secret/rotate`, {}, owner.token);
    expect(rotated.status).toBe(200);
    const fresh = rotated.body.result.identity_secret;
    expect(fresh).not.toBe(old);
    expect((await check(old)).status).toBe(401);
    expect((await check(fresh)).status).toBe(200);
  });
});

describe(`verified visitors (${MODE})`, () => {
  test("a verified user has one conversation from any device, a verified contact with name and e-mail", async () => {
    const userId = `user-${crypto.randomUUID()}`;
    const identity = { user_id: userId, user_hash: hash(userId) };
    const checked = await client.get(`/api/widget/identity?${qs(identity)}`);
    expect(checked.status).toBe(200);
    expect(checked.body.result).toEqual({ chat_id: `verified:${userId}`, user_id: userId, verified: true });
    const chatId = checked.body.result.chat_id;

    const phone = await send({ ...identity, text: "from my phone", user: { name: "Vera Verified", email: "vera@example.com" } });
    expect(phone.status).toBe(200);
    expect(phone.body.result.chat_id).toBe(chatId);
    // A second device: no chat_id of its own, the same user and hash.
    const laptop = await send({ ...identity, text: "from my laptop" });
    expect(laptop.body.result.conversation_id).toBe(phone.body.result.conversation_id);
    const seen = await history({ chat_id: chatId, ...identity });
    expect(seen.body.result.map((m: { text: string }) => m.text)).toEqual(["from my phone", "from my laptop"]);

    const conversation = await detail(phone.body.result.conversation_id);
    expect(conversation.contact).toMatchObject({ verified: true, external_user_id: userId, name: "Vera Verified", email: "vera@example.com" });
  });

  test("a wrong hash is refused with 401 everywhere, and stores nothing", async () => {
    const userId = `user-${crypto.randomUUID()}`;
    const forged = { user_id: userId, user_hash: hash(userId, "not-the-secret") };
    const checked = await client.get(`/api/widget/identity?${qs(forged)}`);
    expect(checked.status).toBe(401);
    expect(checked.body.error).toContain("HMAC-SHA256");
    expect((await client.get(`/api/widget/identity?${qs({ user_id: userId, user_hash: "zz" })}`)).status).toBe(401);
    expect((await send({ ...forged, text: "forged" })).status).toBe(401);
    expect((await history({ chat_id: `verified:${userId}`, ...forged })).status).toBe(401);
    // Another user's valid hash does not open this user's chat.
    const mallory = `mallory-${crypto.randomUUID()}`;
    expect((await history({ chat_id: `verified:${userId}`, user_id: mallory, user_hash: hash(mallory) })).status).toBe(400);
    const inbox = (await client.get(`/api/inbox?bot_id=${bot.id}&q=forged`, owner.token)).body.result;
    expect(JSON.stringify(inbox)).not.toContain("forged");
  });

  test("an unverified visitor cannot write to, read, follow, press in or upload to a verified user's chat", async () => {
    const userId = `user-${crypto.randomUUID()}`;
    const identity = { user_id: userId, user_hash: hash(userId) };
    const own = await send({ ...identity, text: "my order number is 7781" });
    const chatId = own.body.result.chat_id;

    const write = await send({ chat_id: chatId, text: "let me in" });
    expect(write.status).toBe(401);
    expect(write.body.error).toContain("belongs to a verified user");
    expect((await send({ chat_id: chatId, user: { id: userId }, text: "claiming" })).status).toBe(401);
    const read = await history({ chat_id: chatId });
    expect(read.status).toBe(401);
    expect(JSON.stringify(read.body)).not.toContain("7781");
    const stream = await openStream(client.app, `/api/messages/stream?${qs({ chat_id: chatId, since: "0" })}`);
    expect(stream.status).toBe(401);
    const press = await client.post("/api/messages/callback-query", { widget_key: bot.widget_key, chat_id: chatId, message_id: "1", data: "x" });
    expect(press.status).toBe(401);
    const form = new FormData();
    form.append("file", new Blob(["hello"], { type: "text/plain" }), "a.txt");
    const upload = await client.app.handle(new Request(`http://test.local/api/files?${qs({ chat_id: chatId })}`, { method: "POST", body: form }));
    expect(upload.status).toBe(401);

    // Claiming the same user id without a hash is its own, unverified contact: never merged.
    const claim = await send({ chat_id: `anon-${crypto.randomUUID()}`, user: { id: userId, first_name: "Mallory" }, text: "I am them" });
    expect(claim.status).toBe(200);
    expect(claim.body.result.conversation_id).not.toBe(own.body.result.conversation_id);
    const claimed = await detail(claim.body.result.conversation_id);
    expect(claimed.contact.verified).toBe(false);
    expect(claimed.contact.id).not.toBe((await detail(own.body.result.conversation_id)).contact.id);
    expect((await history({ chat_id: chatId, ...identity })).body.result.map((m: { text: string }) => m.text)).toEqual(["my order number is 7781"]);
  });

  test("the verified user follows their chat live with the hash; a repeat with the same client id is one message", async () => {
    const userId = `user-${crypto.randomUUID()}`;
    const identity = { user_id: userId, user_hash: hash(userId) };
    const first = await send({ ...identity, text: "once", metadata: { client_message_id: "c1" } });
    const again = await send({ ...identity, text: "once", metadata: { client_message_id: "c1" } });
    expect(again.body.result.message_id).toBe(first.body.result.message_id);
    const stream = await openStream(client.app, `/api/messages/stream?${qs({ chat_id: first.body.result.chat_id, since: "0", ...identity })}`);
    expect(stream.status).toBe(200);
    const frame = await stream.next((f) => f.event === "message");
    expect(frame.data.text).toBe("once");
    await stream.close();
  });

  test("an anonymous visitor's ordinary chat ids still work, and verified: chat ids are not theirs to name", async () => {
    const anon = await send({ chat_id: `w_${crypto.randomUUID()}`, text: "just browsing" });
    expect(anon.status).toBe(200);
    expect((await detail(anon.body.result.conversation_id)).contact.verified).toBe(false);
    const squat = await send({ chat_id: "verified:someone-else", text: "waiting" });
    expect(squat.status).toBe(401);
    const tooLong = "u".repeat(256);
    expect((await send({ user_id: tooLong, user_hash: hash(tooLong) })).status).toBe(400);
  });
});
