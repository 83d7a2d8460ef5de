// Per-user inbox state on the server: assignment and its filters, read markers and unread
// counts that survive a reload and stay each user's own, the status-tab counts, and what the
// live streams tell (conversation_read, bots_changed, operator_typing); plus the contact panel.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestBot, registerUser, testClient, type Client, type TestBot, type TestUser } from "../support/harness.ts";
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
  const bot = await createTestBot(client, owner, "State bot");
  const invite = await client.post(`/api/bots/${bot.id}/invites`, { email: operator.email }, owner.token);
  expect((await client.post("/api/invites/accept", { code: invite.body.result.code }, operator.token)).status).toBe(200);
  return { owner, operator, bot };
}

const visitor = async (bot: TestBot, chat: string, text: string, extra: Record<string, unknown> = {}) => {
  const res = await client.post("/api/messages", { widget_key: bot.widget_key, chat_id: chat, text, ...extra });
  expect(res.status).toBe(200);
  return res.body.result as { conversation_id: string; message_id: string };
};

const inbox = async (user: TestUser, query = "") => (await client.get(`/api/inbox${query}`, user.token)).body.result as any[];
const unreadOf = async (user: TestUser, conversationId: string) =>
  (await client.get(`/api/inbox/${conversationId}`, user.token)).body.result.unread_count as number;

async function stream(path: string, headers: Record<string, string> = {}) {
  const s = await openStream(client.app, path, headers);
  streams.push(s);
  await s.next((f) => f.event === "ready");
  return s;
}
const inboxStream = (user: TestUser) => stream("/api/inbox/stream", { authorization: `Bearer ${user.token}` });

describe("assignment", () => {
  test("mine / unassigned / all, the assignee in list and detail, members only", async () => {
    const { owner, operator, bot } = await team();
    const mine = await visitor(bot, `a-${crypto.randomUUID()}`, "for the owner");
    const theirs = await visitor(bot, `b-${crypto.randomUUID()}`, "for the operator");
    const nobody = await visitor(bot, `c-${crypto.randomUUID()}`, "for nobody");
    const assigned = await client.patch(`/api/inbox/${mine.conversation_id}`, { assignee_id: owner.id }, owner.token);
    expect(assigned.body.result.assignee).toEqual({ user_id: owner.id, email: owner.email });
    await client.patch(`/api/inbox/${theirs.conversation_id}`, { assignee_id: operator.id }, owner.token);

    const ids = (list: any[]) => list.map((c) => c.id).sort();
    expect(ids(await inbox(owner, "?assignee=me"))).toEqual([mine.conversation_id]);
    expect(ids(await inbox(operator, "?assignee=me"))).toEqual([theirs.conversation_id]);
    expect(ids(await inbox(operator, "?assignee=unassigned"))).toEqual([nobody.conversation_id]);
    expect(ids(await inbox(owner, "?assignee=all"))).toEqual(ids([mine, theirs, nobody].map((a) => ({ id: a.conversation_id }))));
    const listed = (await inbox(owner)).find((c) => c.id === theirs.conversation_id);
    expect(listed.assignee).toEqual({ user_id: operator.id, email: operator.email });
    expect((await client.get(`/api/inbox/${theirs.conversation_id}`, owner.token)).body.result.assignee.user_id).toBe(operator.id);

    const outsider = await registerUser(client);
    const refused = await client.patch(`/api/inbox/${nobody.conversation_id}`, { assignee_id: outsider.id }, owner.token);
    expect(refused.status).toBe(400);
    expect((await client.patch(`/api/inbox/${theirs.conversation_id}`, { assignee_id: null }, operator.token)).body.result.assignee).toBeNull();
    expect(ids(await inbox(operator, "?assignee=me"))).toEqual([]);
    expect((await client.get("/api/inbox?assignee=someone", owner.token)).status).toBe(400);
  });

  test("an assignment reaches the other members' live streams with the assignee", async () => {
    const { owner, operator, bot } = await team();
    const chat = `live-${crypto.randomUUID()}`;
    const { conversation_id } = await visitor(bot, chat, "assign me");
    const s = await inboxStream(owner);
    await client.patch(`/api/inbox/${conversation_id}`, { assignee_id: operator.id }, operator.token);
    const updated = await s.next((f) => f.event === "conversation_updated" && f.data.conversation.id === conversation_id);
    expect(updated.data.conversation.assignee).toEqual({ user_id: operator.id, email: operator.email });
  });
});

describe("read state", () => {
  test("unread counts are per user, survive a reload and count only incoming messages after the marker", async () => {
    const { owner, operator, bot } = await team();
    const chat = `r-${crypto.randomUUID()}`;
    const first = await visitor(bot, chat, "one");
    const second = await visitor(bot, chat, "two");
    await visitor(bot, chat, "three");
    expect(await unreadOf(owner, first.conversation_id)).toBe(3);
    expect(await unreadOf(operator, first.conversation_id)).toBe(3);

    const partly = await client.post(`/api/inbox/${first.conversation_id}/read`, { message_id: second.message_id }, owner.token);
    expect(partly.body.result).toEqual({ conversation_id: first.conversation_id, unread_count: 1 });
    // The marker never moves back.
    await client.post(`/api/inbox/${first.conversation_id}/read`, { message_id: Number(first.message_id) }, owner.token);
    expect(await unreadOf(owner, first.conversation_id)).toBe(1);
    expect((await client.post(`/api/inbox/${first.conversation_id}/read`, undefined, owner.token)).body.result.unread_count).toBe(0);

    // "Reload": a new app on the same database (another process or device) sees the same state.
    const reloaded = await testClient();
    try {
      const list = (await reloaded.get(`/api/inbox?bot_id=${bot.id}`, owner.token)).body.result;
      expect(list.find((c: any) => c.id === first.conversation_id).unread_count).toBe(0);
      expect((await reloaded.get(`/api/inbox?bot_id=${bot.id}`, operator.token)).body.result[0].unread_count).toBe(3);
    } finally {
      await reloaded.platform.close();
    }
    // The operator's reply is not unread; the visitor's next message is.
    await client.post(`/api/inbox/${first.conversation_id}`, { text: "hello" }, operator.token);
    expect(await unreadOf(owner, first.conversation_id)).toBe(0);
    await visitor(bot, chat, "four");
    expect(await unreadOf(owner, first.conversation_id)).toBe(1);
    expect(await unreadOf(operator, first.conversation_id)).toBe(4);
    // A marker asked for beyond the newest message stops at it: what comes next is still unread.
    await client.post(`/api/inbox/${first.conversation_id}/read`, { message_id: 999_999_999 }, operator.token);
    await visitor(bot, chat, "later");
    expect(await unreadOf(operator, first.conversation_id)).toBe(1);
  });

  test("a member who joins later does not inherit the history as unread", async () => {
    const owner = await registerUser(client);
    const late = await registerUser(client);
    const bot = await createTestBot(client, owner, "Late bot");
    const chat = `late-${crypto.randomUUID()}`;
    const { conversation_id } = await visitor(bot, chat, "before you came");
    const invite = await client.post(`/api/bots/${bot.id}/invites`, { email: late.email }, owner.token);
    await client.post("/api/invites/accept", { code: invite.body.result.code }, late.token);
    expect(await unreadOf(late, conversation_id)).toBe(0);
    expect(await unreadOf(owner, conversation_id)).toBe(1);
    await visitor(bot, chat, "after you came");
    expect(await unreadOf(late, conversation_id)).toBe(1);
    expect((await client.get("/api/inbox/counts", late.token)).body.result.unread.all).toBe(1);
  });

  test("counts per status tab, with unread conversations, for one bot or all, by assignee", async () => {
    const { owner, operator, bot } = await team();
    const a = await visitor(bot, `s1-${crypto.randomUUID()}`, "new one");
    const b = await visitor(bot, `s2-${crypto.randomUUID()}`, "to be closed");
    const c = await visitor(bot, `s3-${crypto.randomUUID()}`, "waiting one");
    await client.patch(`/api/inbox/${b.conversation_id}`, { status: "closed" }, owner.token);
    await client.patch(`/api/inbox/${c.conversation_id}`, { status: "waiting", assignee_id: operator.id }, owner.token);
    await client.post(`/api/inbox/${b.conversation_id}/read`, {}, owner.token);

    const counts = (await client.get(`/api/inbox/counts?bot_id=${bot.id}`, owner.token)).body.result;
    expect(counts).toEqual({
      status: { new: 1, open: 0, waiting: 1, closed: 1, all: 3 },
      unread: { new: 1, open: 0, waiting: 1, closed: 0, all: 2 },
    });
    const operatorCounts = (await client.get("/api/inbox/counts?assignee=me", operator.token)).body.result;
    expect(operatorCounts.status).toEqual({ new: 0, open: 0, waiting: 1, closed: 0, all: 1 });
    expect(operatorCounts.unread.all).toBe(1);
    await client.post(`/api/inbox/${a.conversation_id}/read`, {}, owner.token);
    expect((await client.get("/api/inbox/counts", owner.token)).body.result.unread.all).toBe(1);
  });

  test("reading tells the reader's other tabs (conversation_read), and nobody else", async () => {
    const { owner, operator, bot } = await team();
    const { conversation_id } = await visitor(bot, `rt-${crypto.randomUUID()}`, "read me");
    const ownerTab = await inboxStream(owner);
    const operatorTab = await inboxStream(operator);
    await client.post(`/api/inbox/${conversation_id}/read`, {}, owner.token);
    const read = await ownerTab.next((f) => f.event === "conversation_read");
    expect(read.data).toMatchObject({ conversation_id, unread_count: 0, bot_id: bot.id });
    // A later event on the operator's stream proves the read notice had its chance to arrive.
    await visitor(bot, `rt2-${crypto.randomUUID()}`, "after the read");
    await operatorTab.next((f) => f.event === "message_created" && f.data.message.text === "after the read");
    expect(operatorTab.frames.some((f) => f.event === "conversation_read")).toBe(false);
  });
});

describe("membership and the live stream", () => {
  test("a new member's open stream starts receiving the bot; a removed one stops", async () => {
    const owner = await registerUser(client);
    const operator = await registerUser(client);
    const bot = await createTestBot(client, owner, "Join bot");
    const s = await inboxStream(operator);
    const invite = await client.post(`/api/bots/${bot.id}/invites`, { email: operator.email }, owner.token);
    await client.post("/api/invites/accept", { code: invite.body.result.code }, operator.token);
    expect((await s.next((f) => f.event === "bots_changed")).data.bot_id).toBe(bot.id);
    await visitor(bot, `j-${crypto.randomUUID()}`, "hello new member");
    await s.next((f) => f.event === "message_created" && f.data.message.text === "hello new member");

    await client.request("DELETE", `/api/bots/${bot.id}/members/${operator.id}`, { token: owner.token });
    await s.next((f) => f.event === "bots_changed" && s.frames.filter((g) => g.event === "bots_changed").length === 2);
    await visitor(bot, `j2-${crypto.randomUUID()}`, "after removal");
    // The owner's stream gets it; by then the removed operator's would have too.
    const ownerStream = await inboxStream(owner);
    await visitor(bot, `j3-${crypto.randomUUID()}`, "marker");
    await ownerStream.next((f) => f.event === "message_created" && f.data.message.text === "marker");
    expect(s.frames.some((f) => f.event === "message_created" && ["after removal", "marker"].includes(f.data.message.text))).toBe(false);
  });

  test("a bot created while the owner's stream is open is followed at once", async () => {
    const owner = await registerUser(client);
    const s = await inboxStream(owner);
    const bot = await createTestBot(client, owner, "Fresh bot");
    expect((await s.next((f) => f.event === "bots_changed")).data.bot_id).toBe(bot.id);
    await visitor(bot, `fresh-${crypto.randomUUID()}`, "first words");
    await s.next((f) => f.event === "message_created" && f.data.message.text === "first words");
  });
});

describe("operator typing", () => {
  test("the chat's widget stream shows operator_typing; other chats do not", async () => {
    const { operator, bot } = await team();
    const chat = `t-${crypto.randomUUID()}`;
    const other = `t2-${crypto.randomUUID()}`;
    const { conversation_id } = await visitor(bot, chat, "anyone there?");
    await visitor(bot, other, "me too");
    const widget = await stream(`/api/messages/stream?widget_key=${bot.widget_key}&chat_id=${chat}`);
    const otherWidget = await stream(`/api/messages/stream?widget_key=${bot.widget_key}&chat_id=${other}`);
    expect((await client.post(`/api/inbox/${conversation_id}/typing`, undefined, operator.token)).status).toBe(200);
    await widget.next((f) => f.event === "operator_typing");
    await client.post(`/api/inbox/${conversation_id}`, { text: "yes" }, operator.token);
    await widget.next((f) => f.event === "message" && f.data.text === "yes");
    expect(otherWidget.frames.some((f) => f.event === "operator_typing")).toBe(false);
    // Nothing was stored: the conversation has the two messages only.
    expect((await client.get(`/api/inbox/${conversation_id}`, operator.token)).body.result.messages).toHaveLength(2);
  });
});

describe("contact panel", () => {
  test("the page the visitor wrote from and the contact's other conversations", async () => {
    const { operator, bot } = await team();
    const person = `person-${crypto.randomUUID()}`;
    const earlier = await visitor(bot, `p1-${crypto.randomUUID()}`, "first visit", { external_user_id: person });
    const chat = `p2-${crypto.randomUUID()}`;
    await visitor(bot, chat, "on pricing", { external_user_id: person, metadata: { page_url: "https://shop.example.com/pricing", page_title: "Pricing" } });
    const latest = await visitor(bot, chat, "no page this time", { external_user_id: person });
    const detail = (await client.get(`/api/inbox/${latest.conversation_id}`, operator.token)).body.result;
    expect(detail.page).toEqual({ url: "https://shop.example.com/pricing", title: "Pricing" });
    expect(detail.contact_conversations.map((c: any) => c.id)).toEqual([earlier.conversation_id]);
    expect(detail.contact_conversations[0]).toMatchObject({ channel: "widget", status: "new" });
    const none = (await client.get(`/api/inbox/${earlier.conversation_id}`, operator.token)).body.result;
    expect(none.page).toBeNull();
  });
});
