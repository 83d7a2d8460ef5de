// Routing across two web processes (production: two platforms on one Postgres and NATS;
// embedded: two platforms on the one database, the single-process equivalent), reassignment
// after a member stays offline, and snooze surviving a restart.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ownerEventsSubject } from "../../src/core/subjects.ts";
import { createLogger } from "../../src/logger.ts";
import { openPlatform } from "../../src/platform.ts";
import { clientFor, createTestBot, MODE, registerUser, testClient, testConfig, testPlatform, type Client } from "../support/harness.ts";
import { eventually } from "../support/eventually.ts";
import { put, teamOf, visitorSays } from "./support.ts";

let first: Client;
let second: Client;
beforeAll(async () => {
  first = await testClient();
  // Production: its own connections to the same Postgres and NATS, as a second `web` process has.
  second = MODE === "production" ? clientFor(await testPlatform({}, { db: undefined, migrate: false })) : await testClient();
});
afterAll(async () => {
  await second.platform.close();
  await first.platform.close();
});

async function loads(client: Client, botId: string): Promise<Map<string, number>> {
  const rows = await client.platform.db.query<{ user_id: string; n: number | string }>(
    `select a.user_id, count(*) as n from conversation_assignees a join conversations c on c.id = a.conversation_id
     where a.bot_id = $1 and c.status in ('new', 'open') group by a.user_id`,
    [botId],
  );
  return new Map(rows.map((r) => [r.user_id, Number(r.n)]));
}

describe("routing", () => {
  test("only the owner sets routing; modes and capacity are checked", async () => {
    const { owner, operators: [operator], bot } = await teamOf(first, 1);
    expect((await first.get(`/api/bots/${bot.id}/routing`, owner.token)).body.result).toMatchObject({ mode: "off", capacity: 3 });
    expect((await first.get(`/api/bots/${bot.id}/routing`, operator!.token)).status).toBe(403);
    expect((await put(first, `/api/bots/${bot.id}/routing`, { mode: "round_robin" }, operator!.token)).status).toBe(403);
    expect((await put(first, `/api/bots/${bot.id}/routing`, { mode: "fastest" }, owner.token)).status).toBe(400);
    expect((await put(first, `/api/bots/${bot.id}/routing`, { mode: "least_busy", capacity: 0 }, owner.token)).status).toBe(400);
    const set = await put(first, `/api/bots/${bot.id}/routing`, { mode: "least_busy", capacity: 5 }, owner.token);
    expect(set.body.result).toMatchObject({ bot_id: bot.id, mode: "least_busy", capacity: 5 });
    const stranger = await registerUser(first);
    expect((await first.get(`/api/bots/${bot.id}/routing`, stranger.token)).status).toBe(404);
  });

  test("200 simultaneous new conversations through two web processes, capacity 3, 4 online members: never above capacity, never assigned twice", async () => {
    const { owner, operators, bot } = await teamOf(first, 3, "Busy bot");
    const members = [owner, ...operators];
    for (const m of members) expect((await put(first, "/api/me/presence", { status: "online" }, m.token)).status).toBe(200);
    expect((await put(first, `/api/bots/${bot.id}/routing`, { mode: "round_robin", capacity: 3 }, owner.token)).status).toBe(200);

    // Every assignment either process announces, per conversation.
    const assignedTo = new Map<string, Set<string>>();
    const leaves = await Promise.all([first, second].map((c) => c.platform.bus.subscribe(ownerEventsSubject(owner.id), (e: any) => {
      if (e.kind !== "conversation_updated" || e.bot_id !== bot.id || !e.conversation.assignee) return;
      const set = assignedTo.get(e.conversation.id) ?? new Set<string>();
      set.add(e.conversation.assignee.user_id);
      assignedTo.set(e.conversation.id, set);
    })));
    try {
      const started = Date.now();
      const results = await Promise.all(Array.from({ length: 200 }, (_, i) => visitorSays(i % 2 ? second : first, bot, `rush-${i}`, `Help ${i}`)));
      const elapsed = Date.now() - started;
      expect(results.filter((r) => r.status !== 200)).toEqual([]);

      const load = await loads(first, bot.id);
      expect([...load.keys()].sort()).toEqual(members.map((m) => m.id).sort());
      for (const n of load.values()) expect(n).toBe(3);
      const rows = await first.platform.db.query<{ n: number | string }>(`select count(*) as n from conversation_assignees where bot_id = $1`, [bot.id]);
      expect(Number(rows[0]!.n)).toBe(12);
      await eventually("the 12 assignments announced", () => assignedTo.size === 12);
      for (const assignees of assignedTo.values()) expect(assignees.size).toBe(1);
      console.log(`routing: 200 conversations through two processes in ${elapsed} ms (${MODE})`);

      // A member closes one: the next scan gives them a waiting conversation, still within capacity.
      const mine = [...assignedTo].find(([, who]) => who.has(operators[0]!.id))![0];
      expect((await first.patch(`/api/inbox/${mine}`, { status: "closed" }, operators[0]!.token)).status).toBe(200);
      const scan = second.services.teamwork.scan({ intervalMs: 3_600_000 });
      try {
        expect((await scan.runOnce()).routed).toBe(1);
      } finally {
        await scan.stop();
      }
      expect((await loads(first, bot.id)).get(operators[0]!.id)).toBe(3);
    } finally {
      for (const leave of leaves) leave();
    }
  }, 120_000);

  test("routing turned on for a bot whose visitors already wrote routes the next visitor message at once, in every process", async () => {
    const { owner, operators: [a], bot } = await teamOf(first, 1);
    await put(first, "/api/me/presence", { status: "offline" }, owner.token);
    await put(first, "/api/me/presence", { status: "online" }, a!.token);
    // Both processes have seen a visitor message of the bot while it did not route (and remember that).
    const processes = MODE === "production" ? [first, second] : [first];
    for (const [i, client] of processes.entries()) expect((await visitorSays(client, bot, `before-${i}`, "hi")).status).toBe(200);
    expect((await loads(first, bot.id)).get(a!.id)).toBeUndefined();

    expect((await put(first, `/api/bots/${bot.id}/routing`, { mode: "round_robin", capacity: 5 }, owner.token)).status).toBe(200);
    for (const client of processes) await client.platform.bus.flush();
    // Routing after a visitor message is done before the answer: no scan runs in between.
    for (const [i, client] of processes.entries()) {
      expect((await visitorSays(client, bot, `after-${i}`, "hello")).status).toBe(200);
      const [row] = await first.platform.db.query<{ n: number | string }>(
        `select count(*) as n from conversation_assignees x join conversations c on c.id = x.conversation_id
         where c.bot_id = $1 and c.chat_id = $2 and x.user_id = $3`, [bot.id, `after-${i}`, a!.id]);
      expect(Number(row!.n)).toBe(1);
    }
  });

  test("least busy picks the member with fewest open conversations; an assignee offline too long loses them to someone online", async () => {
    const { owner, operators: [a, b], bot } = await teamOf(first, 2);
    await put(first, "/api/me/presence", { status: "offline" }, owner.token);
    await put(first, "/api/me/presence", { status: "online" }, a!.token);
    await put(first, "/api/me/presence", { status: "offline" }, b!.token);
    await put(first, `/api/bots/${bot.id}/routing`, { mode: "least_busy", capacity: 2 }, owner.token);
    await visitorSays(first, bot, "lb-1", "one");
    await visitorSays(first, bot, "lb-2", "two");
    expect((await loads(first, bot.id)).get(a!.id)).toBe(2);

    await put(first, "/api/me/presence", { status: "online" }, b!.token);
    await visitorSays(first, bot, "lb-3", "three");
    expect((await loads(first, bot.id)).get(b!.id)).toBe(1);

    // a goes offline; once that is longer ago than ROUTING_REASSIGN_AFTER_S, b (capacity 2) takes one, the other waits.
    await put(first, "/api/me/presence", { status: "offline" }, a!.token);
    await first.platform.db.query(`update member_presence set changed_at = now() - interval '1 hour' where user_id = $1`, [a!.id]);
    await first.platform.db.query(`update conversation_assignees set assigned_at = now() - interval '1 hour' where user_id = $1`, [a!.id]);
    const scan = first.services.teamwork.scan({ intervalMs: 3_600_000 });
    try {
      const result = await scan.runOnce();
      expect(result.reassigned).toBe(2);
    } finally {
      await scan.stop();
    }
    const after = await loads(first, bot.id);
    expect(after.get(a!.id)).toBeUndefined();
    expect(after.get(b!.id)).toBe(2);
  });

  test("a bot with a backend keeps its conversations until it hands one off", async () => {
    const { owner, bot } = await teamOf(first, 0);
    await put(first, "/api/me/presence", { status: "online" }, owner.token);
    await put(first, `/api/bots/${bot.id}/routing`, { mode: "round_robin", capacity: 3 }, owner.token);
    // The backend polls get-updates (here through the Telegram facade): conversations are the bot's.
    expect((await first.request("POST", `/bot${bot.token}/getUpdates`, { body: { timeout: 0 } })).status).toBe(200);
    await eventually("the poll recorded", async () =>
      (await first.platform.db.query(`select 1 from bot_backend_seen where bot_id = $1`, [bot.id])).length > 0);
    await visitorSays(first, bot, "bot-chat", "hi bot");
    expect((await loads(first, bot.id)).size).toBe(0);
    const handoff = await first.request("POST", `/api/bots/${bot.id}/handoff`, { body: { chat_id: "bot-chat" }, headers: { authorization: `Bearer ${bot.token}` } });
    expect(handoff.status).toBe(200);
    expect((await loads(first, bot.id)).get(owner.id)).toBe(1);
  });
});

describe("snooze", () => {
  test("a snoozed conversation reopens at its time, also when the process that snoozed it is gone", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "snooze-"));
    const config = testConfig({ dataDir });
    const open = async () => clientFor(await openPlatform(config, createLogger(config), { migrate: true, relayIntervalMs: 0 }));
    let client = await open();
    const user = await registerUser(client);
    const bot = await createTestBot(client, user);
    const sent = await visitorSays(client, bot, "snooze-chat", "remind me");
    const id = sent.body.result.conversation_id;

    expect((await client.patch(`/api/inbox/${id}`, { snoozed_until: new Date().toISOString() }, user.token)).status).toBe(400);
    expect((await client.patch(`/api/inbox/${id}`, { status: "waiting", snoozed_until: "tomorrow" }, user.token)).status).toBe(400);
    const until = new Date(Date.now() + 2_000).toISOString();
    const snoozed = await client.patch(`/api/inbox/${id}`, { status: "waiting", snoozed_until: until }, user.token);
    expect(snoozed.status).toBe(200);
    expect(snoozed.body.result).toMatchObject({ status: "waiting", snoozed_until: until });
    await client.platform.close();

    // A new process on the same database: its scan reopens the conversation at the time.
    client = await open();
    const scan = client.services.teamwork.scan({ intervalMs: 200 });
    try {
      const status = async () => (await client.get(`/api/inbox/${id}`, user.token)).body.result;
      expect((await status()).status).toBe("waiting");
      await eventually("the snooze to end", async () => (await status()).status === "open", 15_000);
      expect((await status()).snoozed_until).toBeNull();
      expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(until));
    } finally {
      await scan.stop();
      await client.platform.close();
    }
  }, 120_000);

  test("a conversation the scan has reopened shows no snooze time, even before the scan removes it", async () => {
    const { owner, bot } = await teamOf(first, 0);
    const id = (await visitorSays(first, bot, "snooze-3", "hi")).body.result.conversation_id;
    const later = new Date(Date.now() + 3_600_000).toISOString();
    expect((await first.patch(`/api/inbox/${id}`, { status: "waiting", snoozed_until: later }, owner.token)).body.result.snoozed_until).toBe(later);
    // The scan's first step alone: the status moved, the snooze row still there.
    await first.platform.db.query(`update conversations set status = 'open' where id = $1`, [id]);
    const seen = (await first.get(`/api/inbox/${id}`, owner.token)).body.result;
    expect(seen.status).toBe("open");
    expect(seen.snoozed_until).toBeNull();
  });

  test("another status move or a visitor's message ends a snooze", async () => {
    const { owner, bot } = await teamOf(first, 0);
    const id = (await visitorSays(first, bot, "snooze-2", "hi")).body.result.conversation_id;
    const later = new Date(Date.now() + 3_600_000).toISOString();
    await first.patch(`/api/inbox/${id}`, { status: "waiting", snoozed_until: later }, owner.token);
    const closed = await first.patch(`/api/inbox/${id}`, { status: "closed" }, owner.token);
    expect(closed.body.result.snoozed_until).toBeNull();
  });
});
