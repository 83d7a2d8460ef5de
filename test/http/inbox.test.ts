import { beforeAll, describe, expect, test } from "bun:test";
import { createTestBot, registerUser, testClient, type Client, type TestBot, type TestUser } from "../support/harness.ts";

let client: Client;
let alice: TestUser;
let bob: TestUser;
let bot: TestBot;
let bobBot: TestBot;
beforeAll(async () => {
  client = await testClient();
  alice = await registerUser(client);
  bob = await registerUser(client);
  bot = await createTestBot(client, alice, "Inbox bot");
  bobBot = await createTestBot(client, bob, "Bob bot");
});

const chat = () => `chat-${crypto.randomUUID()}`;
const send = async (b: TestBot, chatId: string, text: string, extra: Record<string, unknown> = {}) => {
  const res = await client.post("/api/messages", { bot_id: b.id, chat_id: chatId, text, ...extra });
  if (res.status !== 200) throw new Error(JSON.stringify(res.body));
  return res.body.result as { conversation_id: string; id: string };
};

describe("inbox list", () => {
  test("shows the user's conversations newest activity first with contact and last message", async () => {
    const own = await createTestBot(client, alice, "Order bot");
    const a = await send(own, chat(), "first", { user: { id: "p1", first_name: "Pat" } });
    const b = await send(own, chat(), "second");
    await send(own, (await client.get(`/api/inbox/${a.conversation_id}`, alice.token)).body.result.chat_id, "again");
    const res = await client.get(`/api/inbox?bot_id=${own.id}`, alice.token);
    expect(res.status).toBe(200);
    const ids = res.body.result.map((c: { id: string }) => c.id);
    expect(ids).toEqual([a.conversation_id, b.conversation_id]);
    const top = res.body.result[0];
    expect(top).toMatchObject({ bot_id: own.id, status: "new", message_count: 2, operator_note: "", channel: "custom_api" });
    expect(top.contact).toMatchObject({ external_user_id: "p1", first_name: "Pat" });
    expect(top.last_message).toMatchObject({ text: "again", direction: "in", sender: "user" });
  });

  test("a message for another user's bot never appears in your inbox", async () => {
    const theirs = await send(bobBot, chat(), "bob's secret");
    const mine = await client.get(`/api/inbox?limit=500`, alice.token);
    expect(mine.body.result.map((c: { id: string }) => c.id)).not.toContain(theirs.conversation_id);
    const search = await client.get(`/api/inbox?q=${encodeURIComponent("bob's secret")}`, alice.token);
    expect(search.body.result).toEqual([]);
    // Naming a bot one is not a member of is 404, as on every endpoint.
    const filtered = await client.get(`/api/inbox?bot_id=${bobBot.id}`, alice.token);
    expect(filtered.status).toBe(404);
    expect(JSON.stringify(filtered.body)).not.toContain("bob's secret");
  });

  test("status filter, limit and before paging", async () => {
    const own = await createTestBot(client, alice, "Paging bot");
    const created = [];
    for (let i = 0; i < 5; i++) created.push(await send(own, chat(), `p${i}`));
    const page1 = await client.get(`/api/inbox?bot_id=${own.id}&limit=2`, alice.token);
    expect(page1.body.result.map((c: { id: string }) => c.id)).toEqual([created[4]!.conversation_id, created[3]!.conversation_id]);
    const page2 = await client.get(`/api/inbox?bot_id=${own.id}&limit=2&before=${page1.body.result[1].id}`, alice.token);
    expect(page2.body.result.map((c: { id: string }) => c.id)).toEqual([created[2]!.conversation_id, created[1]!.conversation_id]);
    await client.patch(`/api/inbox/${created[0]!.conversation_id}`, { status: "closed" }, alice.token);
    const closed = await client.get(`/api/inbox?bot_id=${own.id}&status=closed`, alice.token);
    expect(closed.body.result.map((c: { id: string }) => c.id)).toEqual([created[0]!.conversation_id]);
  });

  test("search covers contact name, email, phone, chat id, note and every message's text", async () => {
    const own = await createTestBot(client, alice, "Search bot");
    const tag = crypto.randomUUID().slice(0, 8);
    const byText = await send(own, chat(), `old text zebra${tag}`);
    await send(own, (await client.get(`/api/inbox/${byText.conversation_id}`, alice.token)).body.result.chat_id, "newer message");
    const byName = await send(own, chat(), "x", { user: { id: `n${tag}`, first_name: `Quentin${tag}` } });
    const byChat = await send(own, `order-${tag}-chat`, "x");
    const byNote = await send(own, chat(), "x");
    await client.patch(`/api/inbox/${byNote.conversation_id}`, { operator_note: `vip${tag} customer` }, alice.token);
    const form = await client.post("/api/integrations/sitecms/forms-plugin", {
      integration_key: (await client.get(`/api/bots/${own.id}`, alice.token)).body.result.integration_key,
      contact_email: `mail${tag}@example.com`, contact_phone: `+1 555 ${tag.replace(/\D/g, "").padEnd(4, "7").slice(0, 4)}`,
    });
    const find = async (q: string) =>
      (await client.get(`/api/inbox?q=${encodeURIComponent(q)}`, alice.token)).body.result.map((c: { id: string }) => c.id);
    expect(await find(`zebra${tag}`)).toEqual([byText.conversation_id]);
    expect(await find(`quentin${tag}`)).toEqual([byName.conversation_id]);
    expect(await find(`order-${tag}`)).toEqual([byChat.conversation_id]);
    expect(await find(`VIP${tag}`)).toEqual([byNote.conversation_id]);
    expect(await find(`mail${tag}@`)).toEqual([form.body.result.conversation_id]);
    expect(await find(`${tag}%`)).toEqual([]);
  });

  test("validation and auth", async () => {
    expect((await client.get(`/api/inbox`)).status).toBe(401);
    expect((await client.get(`/api/inbox?status=done`, alice.token)).body.error).toContain("status");
    expect((await client.get(`/api/inbox?bot_id=nope`, alice.token)).status).toBe(400);
    expect((await client.get(`/api/inbox?limit=0`, alice.token)).status).toBe(400);
    expect((await client.get(`/api/inbox?limit=100000`, alice.token)).status).toBe(200);
  });
});

describe("conversation detail, reply and patch", () => {
  test("detail has messages oldest first and contacts; another user's is 404", async () => {
    const c = await send(bot, chat(), "hello", { user: { id: "d1", first_name: "Dee" } });
    const detail = await client.get(`/api/inbox/${c.conversation_id}`, alice.token);
    expect(detail.status).toBe(200);
    expect(detail.body.result.messages.map((m: { text: string }) => m.text)).toEqual(["hello"]);
    expect(detail.body.result.contacts[0].first_name).toBe("Dee");
    expect((await client.get(`/api/inbox/${c.conversation_id}`, bob.token)).status).toBe(404);
    expect((await client.get(`/api/inbox/${crypto.randomUUID()}`, alice.token)).status).toBe(404);
    expect((await client.get(`/api/inbox/not-a-uuid`, alice.token)).status).toBe(400);
  });

  test("an operator reply is stored as out/operator and moves new to open", async () => {
    const c = await send(bot, chat(), "help?");
    const reply = await client.post(`/api/inbox/${c.conversation_id}`, { text: "on it" }, alice.token);
    expect(reply.status).toBe(200);
    expect(reply.body.result).toMatchObject({ direction: "out", sender: "operator", text: "on it", conversation_id: c.conversation_id });
    const detail = await client.get(`/api/inbox/${c.conversation_id}`, alice.token);
    expect(detail.body.result.status).toBe("open");
    expect(detail.body.result.messages.map((m: { sender: string }) => m.sender)).toEqual(["user", "operator"]);
    expect((await client.post(`/api/inbox/${c.conversation_id}`, { text: "" }, alice.token)).status).toBe(400);
    expect((await client.post(`/api/inbox/${c.conversation_id}`, { text: "x" }, bob.token)).status).toBe(404);
  });

  test("PATCH sets status and note; incoming reopens waiting and closed", async () => {
    const c = await send(bot, chat(), "hi");
    const patched = await client.patch(`/api/inbox/${c.conversation_id}`, { status: "waiting", operator_note: "call back" }, alice.token);
    expect(patched.status).toBe(200);
    expect(patched.body.result).toMatchObject({ status: "waiting", operator_note: "call back" });
    const chatId = patched.body.result.chat_id;
    await send(bot, chatId, "still there?");
    expect((await client.get(`/api/inbox/${c.conversation_id}`, alice.token)).body.result.status).toBe("open");
    await client.patch(`/api/inbox/${c.conversation_id}`, { status: "closed" }, alice.token);
    await send(bot, chatId, "one more thing");
    const after = (await client.get(`/api/inbox/${c.conversation_id}`, alice.token)).body.result;
    expect(after.status).toBe("open");
    expect(after.operator_note).toBe("call back");
    await client.patch(`/api/inbox/${c.conversation_id}`, { status: "new" }, alice.token);
    expect((await client.get(`/api/inbox/${c.conversation_id}`, alice.token)).body.result.status).toBe("new");
  });

  test("PATCH validation and isolation", async () => {
    const c = await send(bot, chat(), "hi");
    const bad = await client.patch(`/api/inbox/${c.conversation_id}`, { status: "done" }, alice.token);
    expect(bad.status).toBe(400);
    expect(bad.body.error).toContain("status");
    expect((await client.patch(`/api/inbox/${c.conversation_id}`, { operator_note: 5 }, alice.token)).body.error).toContain("operator_note");
    expect((await client.patch(`/api/inbox/${c.conversation_id}`, { status: "open" }, bob.token)).status).toBe(404);
    expect((await client.get(`/api/inbox/${c.conversation_id}`, alice.token)).body.result.status).toBe("new");
  });
});
