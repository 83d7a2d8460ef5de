// The team's organising tools: labels (list, create, delete, on conversations, filter),
// mentions in private notes, bulk changes, and contacts (list, search, edit, merge, CSV), plus
// the intake keeping user.email/phone.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestBot, MODE, registerUser, testClient, type Client, type TestBot, type TestUser } from "../support/harness.ts";
import { openStream, type OpenStream } from "../web/sse.ts";

let client: Client;
const streams: OpenStream[] = [];
beforeAll(async () => {
  client = await testClient();
});
afterAll(async () => {
  for (const s of streams) await s.close();
  await client.platform.close();
});

async function team() {
  const owner = await registerUser(client);
  const operator = await registerUser(client);
  const bot = await createTestBot(client, owner, "Workflow bot");
  const invite = await client.post(`/api/bots/${bot.id}/invites`, { email: operator.email }, owner.token);
  expect((await client.post("/api/invites/accept", { code: invite.body.result.code }, operator.token)).status).toBe(200);
  return { owner, operator, bot };
}

const visitor = async (bot: TestBot, text = "hi", extra: Record<string, unknown> = {}) => {
  const res = await client.post("/api/messages", { widget_key: bot.widget_key, chat_id: `c-${crypto.randomUUID()}`, text, ...extra });
  expect(res.status).toBe(200);
  return res.body.result.conversation_id as string;
};
const del = (path: string, token: string) => client.request("DELETE", path, { token });

describe(`labels (${MODE})`, () => {
  test("the owner keeps the list; members label conversations, filter by a label, see labels in list, detail and live", async () => {
    const { owner, operator, bot } = await team();
    const billing = await client.post(`/api/bots/${bot.id}/labels`, { name: "billing", color: "#E5484D" }, owner.token);
    expect(billing.status).toBe(200);
    expect(billing.body.result).toMatchObject({ name: "billing", color: "#e5484d", bot_id: bot.id });
    await client.post(`/api/bots/${bot.id}/labels`, { name: "vip", color: "#30a46c" }, owner.token);
    expect((await client.post(`/api/bots/${bot.id}/labels`, { name: "billing", color: "#000000" }, owner.token)).status).toBe(409);
    expect((await client.post(`/api/bots/${bot.id}/labels`, { name: "x", color: "red" }, owner.token)).status).toBe(400);
    expect((await client.post(`/api/bots/${bot.id}/labels`, { name: "ops", color: "#000000" }, operator.token)).status).toBe(403);
    const outsider = await registerUser(client);
    expect((await client.get(`/api/bots/${bot.id}/labels`, outsider.token)).status).toBe(404);
    expect((await client.get(`/api/bots/${bot.id}/labels`, operator.token)).body.result.map((l: any) => l.name)).toEqual(["billing", "vip"]);

    const first = await visitor(bot);
    const second = await visitor(bot);
    const s = await openStream(client.app, "/api/inbox/stream", { authorization: `Bearer ${owner.token}` });
    streams.push(s);
    await s.next((f) => f.event === "ready");
    const patched = await client.patch(`/api/inbox/${first}`, { labels: ["vip", "billing"] }, operator.token);
    expect(patched.status).toBe(200);
    expect(patched.body.result.labels).toEqual(["billing", "vip"]);
    const live = await s.next((f) => f.event === "conversation_updated" && f.data.conversation.id === first);
    expect(live.data.conversation.labels).toEqual(["billing", "vip"]);
    expect((await client.patch(`/api/inbox/${second}`, { labels: ["nope"] }, operator.token)).status).toBe(400);

    const filtered = await client.get(`/api/inbox?bot_id=${bot.id}&label=billing`, operator.token);
    expect(filtered.body.result.map((c: any) => c.id)).toEqual([first]);
    expect((await client.get(`/api/inbox/${first}`, operator.token)).body.result.labels).toEqual(["billing", "vip"]);
    const all = await client.get(`/api/inbox?bot_id=${bot.id}`, operator.token);
    expect(all.body.result.find((c: any) => c.id === second).labels).toEqual([]);

    expect((await del(`/api/bots/${bot.id}/labels/${billing.body.result.id}`, operator.token)).status).toBe(403);
    expect((await del(`/api/bots/${bot.id}/labels/${billing.body.result.id}`, owner.token)).status).toBe(200);
    expect((await client.get(`/api/inbox/${first}`, owner.token)).body.result.labels).toEqual(["vip"]);
    expect((await client.get(`/api/inbox?bot_id=${bot.id}&label=billing`, owner.token)).body.result).toEqual([]);
    expect((await del(`/api/bots/${bot.id}/labels/${billing.body.result.id}`, owner.token)).status).toBe(404);
  });
});

describe(`bulk changes (${MODE})`, () => {
  test("status, assignee and labels per id; another bot's conversation answers for itself; the limit is named", async () => {
    const { owner, operator, bot } = await team();
    await client.post(`/api/bots/${bot.id}/labels`, { name: "urgent", color: "#ff0000" }, owner.token);
    await client.post(`/api/bots/${bot.id}/labels`, { name: "later", color: "#00ff00" }, owner.token);
    const a = await visitor(bot);
    const b = await visitor(bot);
    await client.patch(`/api/inbox/${b}`, { labels: ["later"] }, owner.token);
    const stranger = await registerUser(client);
    const foreign = await visitor(await createTestBot(client, stranger, "Other"));
    const res = await client.post("/api/inbox/bulk", {
      ids: [a, b, foreign], status: "closed", assignee_id: operator.id, add_labels: ["urgent"], remove_labels: ["later"],
    }, operator.token);
    expect(res.status).toBe(200);
    expect(res.body.result).toEqual([{ id: a, ok: true }, { id: b, ok: true }, { id: foreign, ok: false, error: "conversation not found" }]);
    for (const id of [a, b]) {
      const c = (await client.get(`/api/inbox/${id}`, owner.token)).body.result;
      expect(c).toMatchObject({ status: "closed", labels: ["urgent"], assignee: { user_id: operator.id } });
    }
    expect((await client.get(`/api/inbox/${foreign}`, stranger.token)).body.result).toMatchObject({ status: "new", assignee: null });
    const unknownLabel = await client.post("/api/inbox/bulk", { ids: [a], add_labels: ["missing"] }, owner.token);
    expect(unknownLabel.body.result[0]).toMatchObject({ id: a, ok: false });
    expect((await client.post("/api/inbox/bulk", { ids: [a] }, owner.token)).status).toBe(400);
    expect((await client.post("/api/inbox/bulk", { ids: [] , status: "open" }, owner.token)).status).toBe(400);
    const tooMany = Array.from({ length: 101 }, () => crypto.randomUUID());
    expect((await client.post("/api/inbox/bulk", { ids: tooMany, status: "open" }, owner.token)).status).toBe(400);
  });
});

describe(`mentions (${MODE})`, () => {
  test("a note mentioning a member tells them live and lists it in their mentions; non-members cannot be mentioned", async () => {
    const { owner, operator, bot } = await team();
    const conversation = await visitor(bot);
    const s = await openStream(client.app, "/api/inbox/stream", { authorization: `Bearer ${operator.token}` });
    streams.push(s);
    await s.next((f) => f.event === "ready");
    const written = await client.post(`/api/inbox/${conversation}/notes`, { text: "@op please check", mentions: [operator.id] }, owner.token);
    expect(written.status).toBe(200);
    expect(written.body.result).toMatchObject({ private: true, text: "@op please check" });
    const note = await s.next((f) => f.event === "message_created" && f.data.message.private === true);
    expect(note.data.message.text).toBe("@op please check");
    const mentioned = await s.next((f) => f.event === "mentioned");
    expect(mentioned.data.mention).toMatchObject({ conversation_id: conversation, text: "@op please check", by: { user_id: owner.id } });
    const list = await client.get("/api/me/mentions", operator.token);
    expect(list.body.result).toHaveLength(1);
    expect(list.body.result[0]).toMatchObject({ conversation_id: conversation, bot_id: bot.id, message_id: written.body.result.id });
    expect((await client.get("/api/me/mentions", owner.token)).body.result).toEqual([]);
    const outsider = await registerUser(client);
    expect((await client.post(`/api/inbox/${conversation}/notes`, { text: "x", mentions: [outsider.id] }, owner.token)).status).toBe(400);
    expect((await client.post(`/api/inbox/${conversation}/notes`, { text: "x" }, outsider.token)).status).toBe(404);
    expect((await client.post(`/api/inbox/${conversation}/notes`, { text: "" }, owner.token)).status).toBe(400);
  });
});

describe(`contacts (${MODE})`, () => {
  test("the intake keeps user.email and user.phone (validated)", async () => {
    const { owner, bot } = await team();
    const id = await visitor(bot, "hi", { user: { id: `u-${crypto.randomUUID()}`, first_name: "Ada", email: "Ada@Example.com", phone: "+44 20 7946 0018" } });
    const contact = (await client.get(`/api/inbox/${id}`, owner.token)).body.result.contact;
    expect(contact).toMatchObject({ email: "ada@example.com", phone: "+44 20 7946 0018" });
    expect((await client.post("/api/messages", { widget_key: bot.widget_key, chat_id: "bad-mail", text: "x", user: { email: "not mail" } })).status).toBe(400);
    expect((await client.post("/api/messages", { widget_key: bot.widget_key, chat_id: "bad-phone", text: "x", user: { phone: "=cmd|calc" } })).status).toBe(400);
  });

  test("list, search, page, read, edit; members only", async () => {
    const { owner, operator, bot } = await team();
    for (const name of ["Grace Hopper", "Alan Turing", "Ada Lovelace"]) {
      await visitor(bot, "hi", { user: { id: `u-${crypto.randomUUID()}`, first_name: name.split(" ")[0], last_name: name.split(" ")[1] } });
    }
    const list = await client.get(`/api/bots/${bot.id}/contacts`, operator.token);
    expect(list.body.result.map((c: any) => c.name)).toEqual(["Ada Lovelace", "Alan Turing", "Grace Hopper"]);
    const page = await client.get(`/api/bots/${bot.id}/contacts?limit=2`, operator.token);
    const next = await client.get(`/api/bots/${bot.id}/contacts?limit=2&cursor=${page.body.result[1].number}`, operator.token);
    expect(next.body.result.map((c: any) => c.name)).toEqual(["Grace Hopper"]);
    expect((await client.get(`/api/bots/${bot.id}/contacts?q=tur`, operator.token)).body.result.map((c: any) => c.name)).toEqual(["Alan Turing"]);
    const ada = list.body.result[0];
    const edited = await client.patch(`/api/contacts/${ada.id}`, { email: "ada@example.com", phone: "+1 555 0100", attributes: { plan: "pro", seats: 3 } }, operator.token);
    expect(edited.status).toBe(200);
    expect(edited.body.result).toMatchObject({ name: "Ada Lovelace", email: "ada@example.com", phone: "+1 555 0100", attributes: { plan: "pro", seats: 3 } });
    expect(edited.body.result.conversations).toHaveLength(1);
    expect((await client.get(`/api/contacts/${ada.id}`, owner.token)).body.result.attributes).toEqual({ plan: "pro", seats: 3 });
    expect((await client.patch(`/api/contacts/${ada.id}`, { email: "nope" }, owner.token)).status).toBe(400);
    expect((await client.patch(`/api/contacts/${ada.id}`, { attributes: { deep: { x: 1 } } }, owner.token)).status).toBe(400);
    const outsider = await registerUser(client);
    expect((await client.get(`/api/contacts/${ada.id}`, outsider.token)).status).toBe(404);
    expect((await client.patch(`/api/contacts/${ada.id}`, { name: "x" }, outsider.token)).status).toBe(404);
    expect((await client.get(`/api/bots/${bot.id}/contacts`, outsider.token)).status).toBe(404);
  });

  test("merge moves the conversations to `into` (same bot only) and deletes the other", async () => {
    const { owner, bot } = await team();
    const c1 = await visitor(bot, "one", { user: { id: `m-${crypto.randomUUID()}`, first_name: "Dup", email: "dup@example.com" } });
    const c2 = await visitor(bot, "two", { user: { id: `m-${crypto.randomUUID()}`, first_name: "Dup", phone: "+1 555 0199" } });
    const from = (await client.get(`/api/inbox/${c1}`, owner.token)).body.result.contact;
    const into = (await client.get(`/api/inbox/${c2}`, owner.token)).body.result.contact;
    const merged = await client.post(`/api/contacts/${from.id}/merge`, { into: into.id }, owner.token);
    expect(merged.status).toBe(200);
    expect(merged.body.result).toMatchObject({ id: into.id, email: "dup@example.com", phone: "+1 555 0199" });
    expect(merged.body.result.conversations.map((c: any) => c.id).sort()).toEqual([c1, c2].sort());
    expect((await client.get(`/api/inbox/${c1}`, owner.token)).body.result.contact.id).toBe(into.id);
    expect((await client.get(`/api/contacts/${from.id}`, owner.token)).status).toBe(404);
    expect((await client.post(`/api/contacts/${into.id}/merge`, { into: into.id }, owner.token)).status).toBe(400);
    const otherBot = await createTestBot(client, owner, "Other bot");
    const elsewhere = (await client.get(`/api/inbox/${await visitor(otherBot)}`, owner.token)).body.result.contact;
    expect((await client.post(`/api/contacts/${into.id}/merge`, { into: elsewhere.id }, owner.token)).status).toBe(400);
  });

  test("CSV export: every contact, quoted, formulas defused", async () => {
    const { owner, operator, bot } = await team();
    await visitor(bot, "hi", { user: { id: `x-${crypto.randomUUID()}`, first_name: "=HYPERLINK(\"http://evil\")", last_name: "Smith, \"Jr\"" } });
    await visitor(bot, "hi", { user: { id: `x-${crypto.randomUUID()}`, first_name: "Plain" } });
    const res = await client.get(`/api/bots/${bot.id}/contacts.csv`, operator.token);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/csv");
    const lines = (res.body as string).trim().split("\r\n");
    expect(lines[0]).toBe("number,name,first_name,last_name,email,phone,external_user_id,created_at,attributes");
    expect(lines).toHaveLength(3);
    expect(lines[2]).toContain(`"'=HYPERLINK(""http://evil"") Smith, ""Jr"""`);
    expect(lines[2]).toContain(`"'=HYPERLINK(""http://evil"")"`);
    expect(lines[1]).toContain(`"Plain"`);
    const outsider = await registerUser(client);
    expect((await client.get(`/api/bots/${bot.id}/contacts.csv`, outsider.token)).status).toBe(404);
    void owner;
  });
});
