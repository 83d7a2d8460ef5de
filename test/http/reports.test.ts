// Reports on a seeded history whose figures are worked out by hand below: three channels,
// two agents, handoffs, a reopening, ratings, and Europe/Berlin across the spring DST change
// (2026-03-29 01:00 UTC: 02:00 CET becomes 03:00 CEST, so that Berlin day has 23 hours).
// The history is written with the real tables (the roll-up triggers do the rest); ratings go
// through POST /api/messages/rating. A second part drives the live write path end to end.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomUUID } from "node:crypto";
import { createTestBot, registerUser, testClient, uniqueEmail, type Client, type TestBot, type TestUser } from "../support/harness.ts";

let client: Client;
let owner: TestUser;
let alice: TestUser;
let bob: TestUser;
let outsider: TestUser;
let bot: TestBot;

const BERLIN = "Europe/Berlin";
let nextMessageId = 1_000_000;

async function joinBot(user: TestUser) {
  const invite = await client.post(`/api/bots/${bot.id}/invites`, { email: user.email }, owner.token);
  expect((await client.post("/api/invites/accept", { code: invite.body.result.code }, user.token)).status).toBe(200);
}

type Step =
  | ["in" | "bot" | "operator", string]
  | ["status", "open" | "closed", string]
  | ["handoff", string];

/** One conversation written as the app writes it: the conversation, then each message or move in its own statement. */
async function seed(chatId: string, channel: string, createdAt: string, steps: Step[], assignee?: TestUser): Promise<string> {
  const db = client.platform.db;
  const id = randomUUID();
  const [row] = await db.query<{ number: number }>(
    `update bots set last_conversation_number = last_conversation_number + 1 where id = $1 returning last_conversation_number as number`, [bot.id]);
  await db.query(
    `insert into conversations (id, bot_id, owner_id, number, chat_id, channel, created_at, updated_at, last_message_at)
     values ($1, $2, $3, $4, $5, $6, $7, $7, $7)`,
    [id, bot.id, owner.id, row!.number, chatId, channel, createdAt]);
  for (const step of steps) {
    if (step[0] === "status") {
      await db.query(`update conversations set status = $2, updated_at = $3 where id = $1`, [id, step[1], step[2]]);
    } else if (step[0] === "handoff") {
      await db.query(`update conversations set handled_by = 'human', updated_at = $2 where id = $1`, [id, step[1]]);
    } else {
      const [kind, at] = step;
      await db.query(
        `insert into messages (bot_id, owner_id, conversation_id, message_id, direction, sender, text, created_at)
         values ($1, $2, $3, $4, $5, $6, 'text', $7)`,
        [bot.id, owner.id, id, nextMessageId++, kind === "in" ? "in" : "out", kind === "in" ? "user" : kind, at]);
    }
  }
  if (assignee) await db.query(`insert into conversation_assignees (conversation_id, bot_id, user_id) values ($1, $2, $3)`, [id, bot.id, assignee.id]);
  return id;
}

const rate = (chatId: string, rating: number, extra: Record<string, unknown> = {}) =>
  client.post("/api/messages/rating", { widget_key: bot.widget_key, chat_id: chatId, rating, ...extra });

const report = (path: string, query: Record<string, string>, user = owner) =>
  client.get(`/api/reports/${path}?${new URLSearchParams({ bot_id: bot.id, ...query })}`, user.token);

beforeAll(async () => {
  client = await testClient({ rateLimits: false });
  owner = await registerUser(client);
  alice = await registerUser(client, uniqueEmail("alice"));
  bob = await registerUser(client, uniqueEmail("bob"));
  outsider = await registerUser(client);
  bot = await createTestBot(client, owner, "Reports bot");
  await joinBot(alice);
  await joinBot(bob);

  // c0: opened before the range (Fri 27 Mar 23:30 Berlin); writes again on Sat 09:00 Berlin.
  await seed("c0", "widget", "2026-03-27T22:30:00Z", [
    ["in", "2026-03-27T22:30:00Z"], ["status", "closed", "2026-03-28T07:00:00Z"], ["in", "2026-03-28T08:00:00Z"],
    ["status", "open", "2026-03-28T08:00:00Z"], ["status", "closed", "2026-03-28T09:00:00Z"],
  ]);
  // c1: Sat 28 Mar 11:00 Berlin; the bot answers in 30 s, closed after 600 s, nobody else: contained.
  await seed("c1", "widget", "2026-03-28T10:00:00Z", [
    ["in", "2026-03-28T10:00:00Z"], ["bot", "2026-03-28T10:00:30Z"], ["in", "2026-03-28T10:05:00Z"], ["status", "closed", "2026-03-28T10:10:00Z"],
  ]);
  // c2: Sun 29 Mar 00:30 CET; handed off, Alice answers after 120 s, closed after 3600 s.
  await seed("c2", "widget", "2026-03-28T23:30:00Z", [
    ["in", "2026-03-28T23:30:00Z"], ["handoff", "2026-03-28T23:31:00Z"], ["operator", "2026-03-28T23:32:00Z"],
    ["status", "closed", "2026-03-29T00:30:00Z"],
  ], alice);
  // c3: Sun 29 Mar 03:30 CEST (after the change); closed unanswered after 7200 s, reopened by the visitor at
  // 07:00, Bob's reply at 07:10 (13200 s after the first message), closed again: resolution stays 7200 s.
  await seed("c3", "email", "2026-03-29T01:30:00Z", [
    ["in", "2026-03-29T01:30:00Z"], ["status", "closed", "2026-03-29T03:30:00Z"], ["in", "2026-03-29T05:00:00Z"],
    ["status", "open", "2026-03-29T05:00:00Z"], ["operator", "2026-03-29T05:10:00Z"], ["status", "closed", "2026-03-29T06:00:00Z"],
  ], bob);
  // c4: Sun 29 Mar 23:30 CEST; the bot answers in 10 s; still open.
  await seed("c4", "custom_api", "2026-03-29T21:30:00Z", [["in", "2026-03-29T21:30:00Z"], ["bot", "2026-03-29T21:30:10Z"]]);
  // c5: Mon 30 Mar 00:14 CEST, opened by the bot's greeting (not a response); the visitor writes at 00:15, the bot
  // answers 20 s later, hands off, Alice replies, closed 1800 s after the visitor's first message.
  await seed("c5", "widget", "2026-03-29T22:14:00Z", [
    ["bot", "2026-03-29T22:14:00Z"], ["in", "2026-03-29T22:15:00Z"], ["bot", "2026-03-29T22:15:20Z"], ["handoff", "2026-03-29T22:16:00Z"],
    ["operator", "2026-03-29T22:17:00Z"], ["status", "closed", "2026-03-29T22:45:00Z"],
  ], alice);
  // c6: Tue 31 Mar 01:00 CEST: after the range.
  await seed("c6", "widget", "2026-03-30T23:00:00Z", [["in", "2026-03-30T23:00:00Z"]]);
});

afterAll(async () => {
  await client.platform.close();
});

describe("satisfaction", () => {
  test("a visitor rates a closed conversation once; an open one, a repeat, a stranger's chat and a bad rating are refused", async () => {
    expect((await rate("c1", 5, { comment: "  Quick  " })).body.result).toMatchObject({ chat_id: "c1", rating: 5, comment: "Quick" });
    const again = await rate("c1", 4);
    expect(again.status).toBe(409);
    expect(again.body.error).toContain("already been rated");
    const open = await rate("c4", 5);
    expect(open.status).toBe(409);
    expect(open.body.error).toContain("not closed");
    expect((await rate("no-such-chat", 5)).status).toBe(404);
    expect((await rate("c2", 6)).status).toBe(400);
    expect((await rate("c2", 0)).status).toBe(400);
    expect((await client.post("/api/messages/rating", { chat_id: "c2", rating: 3 })).status).toBe(400);
    expect((await rate("c2", 3)).status).toBe(200);
    expect((await client.post("/api/messages/rating", { bot_id: bot.id, chat_id: "c5", rating: 4 })).status).toBe(200);
    expect((await rate("c0", 1)).status).toBe(200);

    const [conversation] = await client.platform.db.query<{ id: string }>(`select id from conversations where bot_id = $1 and chat_id = 'c1'`, [bot.id]);
    const detail = await client.get(`/api/inbox/${conversation!.id}`, alice.token);
    expect(detail.body.result.rating).toMatchObject({ rating: 5, comment: "Quick" });
  });
});

describe("figures of the seeded history (Europe/Berlin, 28–30 March 2026)", () => {
  const range = { from: "2026-03-28", to: "2026-03-30", tz: BERLIN };

  test("summary: volume, medians and 90th percentiles, containment, handoffs, satisfaction", async () => {
    const res = await report("summary", range);
    expect(res.status).toBe(200);
    expect(res.body.result).toEqual({
      // c1..c5 were opened in the range (c0 before it, c6 after); c1, c2, c3, c5 were closed at least once.
      conversations: { opened: 5, closed: 4 },
      // First responses 10, 20, 30, 120, 13200 s: median 30; p90 at rank 0.9·4 = 3.6: 120 + 0.6·(13200 − 120) = 7968.
      first_response: { median_s: 30, p90_s: 7968 },
      // Resolutions 600, 1800, 3600, 7200 s: median (1800 + 3600)/2 = 2700; p90 at rank 2.7: 3600 + 0.7·3600 = 6120.
      resolution: { median_s: 2700, p90_s: 6120 },
      // Of the 4 closed, only c1 had neither an operator message nor a handoff; c2 and c5 were handed off.
      bot_containment: 0.25,
      handoff_rate: 0.5,
      // c1 5, c2 3, c5 4 (c0's 1 is outside the range).
      csat: { count: 3, average: 4 },
      range: { from: "2026-03-27T23:00:00.000Z", to: "2026-03-30T22:00:00.000Z", tz: BERLIN, first_conversation_at: "2026-03-27T22:30:00.000Z" },
    });
  });

  test("conversations by day and channel: the DST day starts at +01:00 and the next at +02:00", async () => {
    const res = await report("series", { ...range, metric: "conversations", group: "day", by: "channel" });
    expect(res.body.result.points).toEqual([
      { t: "2026-03-28T00:00:00+01:00", key: "widget", value: 1 },
      { t: "2026-03-29T00:00:00+01:00", key: "custom_api", value: 1 },
      { t: "2026-03-29T00:00:00+01:00", key: "email", value: 1 },
      { t: "2026-03-29T00:00:00+01:00", key: "widget", value: 1 },
      { t: "2026-03-30T00:00:00+02:00", key: "widget", value: 1 },
    ]);
  });

  test("the same history in UTC puts the conversations on other days", async () => {
    const res = await report("series", { from: "2026-03-28", to: "2026-03-29", metric: "conversations" });
    // UTC 28 Mar: c1 (10:00), c2 (23:30); 29 Mar: c3, c4, c5 (22:14).
    expect(res.body.result.points).toEqual([{ t: "2026-03-28T00:00:00+00:00", value: 2 }, { t: "2026-03-29T00:00:00+00:00", value: 3 }]);
  });

  test("median first response by day; resolution by agent", async () => {
    const first = await report("series", { ...range, metric: "first_response" });
    // 28th: c1 30; 29th: c2 120, c3 13200, c4 10 → 120; 30th: c5 20.
    expect(first.body.result.points).toEqual([
      { t: "2026-03-28T00:00:00+01:00", value: 30 }, { t: "2026-03-29T00:00:00+01:00", value: 120 }, { t: "2026-03-30T00:00:00+02:00", value: 20 },
    ]);
    const resolution = await report("series", { ...range, metric: "resolution", by: "agent" });
    expect(resolution.body.result.points).toEqual([
      { t: "2026-03-28T00:00:00+01:00", key: "unassigned", value: 600 },
      { t: "2026-03-29T00:00:00+01:00", key: alice.email, value: 3600 },
      { t: "2026-03-29T00:00:00+01:00", key: bob.email, value: 7200 },
      { t: "2026-03-30T00:00:00+02:00", key: alice.email, value: 1800 },
    ]);
  });

  test("by hour across the change: 00:00 is +01:00, 03:00 is already +02:00", async () => {
    const res = await report("series", { from: "2026-03-29", to: "2026-03-29", tz: BERLIN, metric: "conversations", group: "hour" });
    expect(res.body.result.points).toEqual([
      { t: "2026-03-29T00:00:00+01:00", value: 1 }, { t: "2026-03-29T03:00:00+02:00", value: 1 }, { t: "2026-03-29T23:00:00+02:00", value: 1 },
    ]);
  });

  test("heatmap: incoming messages by Berlin weekday and hour, Monday first", async () => {
    const res = await report("heatmap", range);
    const expected = Array.from({ length: 7 }, () => new Array(24).fill(0));
    expected[5]![9] = 1; // c0 Sat 09:00
    expected[5]![11] = 2; // c1 Sat 11:00 and 11:05
    expected[6]![0] = 1; // c2 Sun 00:30 CET
    expected[6]![3] = 1; // c3 Sun 03:30 CEST
    expected[6]![7] = 1; // c3 Sun 07:00
    expected[6]![23] = 1; // c4 Sun 23:30
    expected[0]![0] = 1; // c5 Mon 00:15
    expect(res.body.result.counts).toEqual(expected);
    const channel = await report("heatmap", { ...range, channel: "email" });
    expect(channel.body.result.counts.flat().reduce((a: number, b: number) => a + b, 0)).toBe(2);
  });

  test("CSV answers carry the same figures", async () => {
    const summary = await report("summary", { ...range, format: "csv" });
    expect(summary.headers.get("content-type")).toContain("text/csv");
    expect(summary.body).toContain("conversations_opened,5\r\n");
    expect(summary.body).toContain("first_response_p90_s,7968\r\n");
    expect(summary.body).toContain("bot_containment,0.25\r\n");
    const series = await report("series", { ...range, metric: "conversations", by: "channel", format: "csv" });
    expect(series.body).toBe(
      "t,key,value\r\n2026-03-28T00:00:00+01:00,widget,1\r\n2026-03-29T00:00:00+01:00,custom_api,1\r\n2026-03-29T00:00:00+01:00,email,1\r\n" +
      "2026-03-29T00:00:00+01:00,widget,1\r\n2026-03-30T00:00:00+02:00,widget,1\r\n",
    );
    const heat = await report("heatmap", { ...range, format: "csv" });
    const rows = (heat.body as string).trim().split("\r\n");
    expect(rows).toHaveLength(8);
    expect(rows[6]).toBe(`Saturday,${[0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 2, ...new Array(12).fill(0)].join(",")}`);
  });

  test("an operator member reads the reports; a stranger gets 404; no bot_id covers every bot of the caller", async () => {
    expect((await report("summary", range, alice)).body.result.conversations.opened).toBe(5);
    expect((await report("summary", range, outsider)).status).toBe(404);
    const all = await client.get(`/api/reports/summary?${new URLSearchParams(range)}`, alice.token);
    expect(all.body.result.conversations.opened).toBe(5);
    const none = await client.get(`/api/reports/summary?${new URLSearchParams(range)}`, outsider.token);
    expect(none.body.result).toMatchObject({ conversations: { opened: 0, closed: 0 }, bot_containment: null, range: { first_conversation_at: null } });
    expect((await client.get(`/api/reports/summary?bot_id=${bot.id}`)).status).toBe(401);
  });

  test("bad input is a 400 that names the field", async () => {
    const cases: [Record<string, string>, string][] = [
      [{ tz: "Mars/Olympus" }, "tz"],
      [{ from: "yesterday" }, "from"],
      [{ to: "2026-13-45" }, "to"],
      [{ from: "2026-03-30", to: "2026-03-01" }, "before"],
      [{ from: "2020-01-01", to: "2026-01-01" }, "at most"],
    ];
    for (const [query, word] of cases) {
      const res = await report("summary", query);
      expect(res.status).toBe(400);
      expect(res.body.error).toContain(word);
    }
    expect((await report("series", { metric: "speed" })).status).toBe(400);
    expect((await report("series", { metric: "conversations", group: "week" })).status).toBe(400);
    const hourly = await report("series", { metric: "conversations", group: "hour", from: "2026-01-01", to: "2026-03-01" });
    expect(hourly.status).toBe(400);
    expect(hourly.body.error).toContain("group=hour");
    expect((await report("summary", { bot_id: "not-a-uuid" })).status).toBe(400);
  });
});

describe("the live write path keeps the roll-ups", () => {
  test("messages, replies, handoff, close and rating through the API show in today's report", async () => {
    const live = await createTestBot(client, owner, "Live reports bot");
    const send = (chat: string) => client.post("/api/messages", { widget_key: live.widget_key, chat_id: chat, text: "hi" });
    expect((await send("a")).status).toBe(200);
    expect((await send("b")).status).toBe(200);
    const list = await client.get(`/api/inbox?bot_id=${live.id}`, owner.token);
    const idOf = (chat: string) => list.body.result.find((c: any) => c.chat_id === chat).id;
    // a: the bot answers and the conversation is closed: contained. b: taken over, an operator answers, closed.
    expect((await client.post(`/api/bots/${live.id}/send-message`, { chat_id: "a", text: "hello" }, live.token)).status).toBe(200);
    expect((await client.request("POST", `/bot${live.token}/sendMessage`, { body: { chat_id: "a", text: "again" } })).status).toBe(200);
    expect((await client.post(`/api/inbox/${idOf("b")}/takeover`, {}, owner.token)).status).toBe(200);
    expect((await client.post(`/api/inbox/${idOf("b")}`, { text: "a human here" }, owner.token)).status).toBe(200);
    for (const chat of ["a", "b"]) expect((await client.patch(`/api/inbox/${idOf(chat)}`, { status: "closed" }, owner.token)).status).toBe(200);
    expect((await client.post("/api/messages/rating", { widget_key: live.widget_key, chat_id: "a", rating: 4 })).status).toBe(200);

    const summary = (await client.get(`/api/reports/summary?bot_id=${live.id}`, owner.token)).body.result;
    expect(summary).toMatchObject({ conversations: { opened: 2, closed: 2 }, bot_containment: 0.5, handoff_rate: 0.5, csat: { count: 1, average: 4 } });
    expect(summary.first_response.median_s).toBeGreaterThanOrEqual(0);
    expect(summary.resolution.median_s).toBeGreaterThanOrEqual(0);
    const heat = (await client.get(`/api/reports/heatmap?bot_id=${live.id}`, owner.token)).body.result;
    expect(heat.counts.flat().reduce((a: number, b: number) => a + b, 0)).toBe(2);
  });

  test("by agent follows assignment, reassignment, unassignment and a member's removal", async () => {
    const team = await createTestBot(client, owner, "Assigned reports bot");
    const carol = await registerUser(client, uniqueEmail("carol"));
    const dave = await registerUser(client, uniqueEmail("dave"));
    for (const member of [carol, dave]) {
      const invite = await client.post(`/api/bots/${team.id}/invites`, { email: member.email }, owner.token);
      expect((await client.post("/api/invites/accept", { code: invite.body.result.code }, member.token)).status).toBe(200);
    }
    const ids: string[] = [];
    for (const chat of ["x", "y", "z"]) {
      const sent = await client.post("/api/messages", { widget_key: team.widget_key, chat_id: chat, text: "hi" });
      expect(sent.status).toBe(200);
      ids.push(sent.body.result.conversation_id);
    }
    const assign = async (id: string, user: TestUser | null) =>
      expect((await client.patch(`/api/inbox/${id}`, { assignee_id: user?.id ?? null }, owner.token)).status).toBe(200);
    const byAgent = async () => {
      const res = await client.get(`/api/reports/series?${new URLSearchParams({ bot_id: team.id, metric: "conversations", by: "agent" })}`, owner.token);
      expect(res.status).toBe(200);
      return Object.fromEntries(res.body.result.points.map((p: { key: string; value: number }) => [p.key, p.value]));
    };
    await assign(ids[0]!, carol);
    await assign(ids[1]!, carol);
    expect(await byAgent()).toEqual({ [carol.email]: 2, unassigned: 1 });
    await assign(ids[1]!, dave); // reassigned
    await assign(ids[2]!, dave);
    await assign(ids[0]!, null); // unassigned
    expect(await byAgent()).toEqual({ [dave.email]: 2, unassigned: 1 });
    expect((await client.request("DELETE", `/api/bots/${team.id}/members/${dave.id}`, { token: owner.token })).status).toBe(200);
    expect(await byAgent()).toEqual({ unassigned: 3 });
  });

  test("a private note is neither a first response nor an operator's answer", async () => {
    const quiet = await createTestBot(client, owner, "Notes only bot");
    const sent = await client.post("/api/messages", { widget_key: quiet.widget_key, chat_id: "n", text: "anyone?" });
    expect(sent.status).toBe(200);
    const id = sent.body.result.conversation_id;
    expect((await client.post(`/api/inbox/${id}/notes`, { text: "someone call them back" }, owner.token)).status).toBeLessThan(300);
    expect((await client.patch(`/api/inbox/${id}`, { status: "closed" }, owner.token)).status).toBe(200);
    const summary = (await client.get(`/api/reports/summary?bot_id=${quiet.id}`, owner.token)).body.result;
    expect(summary).toMatchObject({ conversations: { opened: 1, closed: 1 }, bot_containment: 1, handoff_rate: 0 });
    expect(summary.first_response.median_s).toBeNull();
  });
});
