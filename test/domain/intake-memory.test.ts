// A chat's next message, planned from what the process remembers (actors/intake-cache.ts), on
// both drivers (committed in one round trip on PostgreSQL; on PGlite without the look-ups, and
// its update log, appended in the same transaction, numbered after another writer's): what the
// bot and the sender get must be what a batch planned from the look-ups gives, whatever changed
// in between: another writer's numbers, an operator closing the chat or renaming its contact, a
// handoff, a repeated client_message_id.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { IntakeActor } from "../../src/actors/intake.ts";
import { IntakeCommitter } from "../../src/actors/intake-committer.ts";
import type { IncomingInput } from "../../src/actors/intake-plan.ts";
import type { AnalysedRows } from "../../src/db/intake-plans.ts";
import { findBotById } from "../../src/db/bots.ts";
import { recordingStatements, sentOnly } from "../support/recording-db.ts";
import { createTestBot, registerUser, testClient, type Client, type TestBot, type TestUser } from "../support/harness.ts";

let client: Client;
let owner: TestUser;

beforeAll(async () => {
  client = await testClient();
  owner = await registerUser(client);
});
afterAll(() => client.platform.close());

const production = () => client.platform.db.kind === "postgres";
/** The platform's own committer, which every POST /api/messages of the platform goes through. */
function committer(): IntakeCommitter {
  const platformCommitter = client.wiring.intake.committer;
  if (!(platformCommitter instanceof IntakeCommitter)) throw new Error("the platform's committer is not an IntakeCommitter");
  return platformCommitter;
}

/** A user's message as a site sends it; the answer's result. */
async function send(bot: TestBot, chat: string, text: string, clientMessageId?: string): Promise<any> {
  const res = await client.post("/api/messages", { bot_id: bot.id, chat_id: chat, text, ...(clientMessageId ? { metadata: { client_message_id: clientMessageId } } : {}) });
  expect({ status: res.status, body: res.body }).toMatchObject({ status: 200 });
  return res.body.result;
}

/** Every pending update of the bot, as a client reads them. */
async function updates(bot: TestBot): Promise<any[]> {
  const res = await client.get(`/api/bots/${bot.id}/get-updates?timeout=0&limit=100`, bot.token);
  expect(res.status).toBe(200);
  return res.body.result;
}

/** The bot's stored incoming messages: text → message_id. */
async function stored(bot: TestBot): Promise<Record<string, string>> {
  const rows = await client.platform.db.query<{ text: string; message_id: string }>(
    `select text, message_id::text from messages where bot_id = $1 and direction = 'in' order by message_id`, [bot.id]);
  return Object.fromEntries(rows.map((r) => [r.text, r.message_id]));
}

/** How many transactions the platform's committer planned from memory, and how many of those the check refused, since `before`. */
function since(before: { committed: number; refused: number }) {
  const now = committer().fromMemory;
  return { committed: now.committed - before.committed, refused: now.refused - before.refused };
}

describe("a chat's next message, planned from memory", () => {
  test("is numbered after another writer's messages and updates: ids match the stored rows, update_ids strictly increase", async () => {
    const bot = await createTestBot(client, owner, "numbers");
    const first = await send(bot, "c1", "first");
    const replies = async (n: number) => {
      // The bot answers (a message number), an operator replies (a message and an update number).
      expect((await client.post(`/api/bots/${bot.id}/send-message`, { chat_id: "c1", text: `bot reply ${n}` }, bot.token)).status).toBe(200);
      expect((await client.post(`/api/inbox/${first.conversation_id}`, { text: `operator reply ${n}` }, owner.token)).status).toBe(200);
    };
    await replies(1);
    const before = { ...committer().fromMemory };
    // The first reply moved the chat from new to open: refused once, planned from the look-ups.
    const second = await send(bot, "c1", "second");
    expect(since(before)).toEqual({ committed: 0, refused: 1 });
    await replies(2);
    const third = await send(bot, "c1", "third");
    const fourth = await send(bot, "c1", "fourth");
    expect(since(before)).toEqual({ committed: 2, refused: 1 });

    const rows = await stored(bot);
    expect([second.message_id, third.message_id, fourth.message_id]).toEqual([rows.second, rows.third, rows.fourth]);
    const got = await updates(bot);
    const incoming = got.filter((u) => u.message);
    expect(incoming.map((u) => [u.message.text, u.message.message_id]))
      .toEqual([["first", rows.first], ["second", rows.second], ["third", rows.third], ["fourth", rows.fourth]]);
    expect(got.filter((u) => u.operator_message).length).toBe(2);
    const ids = got.map((u) => u.update_id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(ids.length);
  });

  test("several bots' remembered chats in one transaction: each bot's message stored and numbered after its own, in one plan from memory", async () => {
    const bots = [await createTestBot(client, owner, "shared a"), await createTestBot(client, owner, "shared b"), await createTestBot(client, owner, "shared c")];
    for (const bot of bots) await send(bot, "c1", "first");
    const before = { ...committer().fromMemory };
    // Sent at once: the committer takes the batches handed over in the same turn together.
    const answers = await Promise.all(bots.map((bot) => send(bot, "c1", "second")));
    const taken = since(before);
    expect(taken.refused).toBe(0);
    expect(taken.committed).toBeLessThan(bots.length);
    for (const [i, bot] of bots.entries()) {
      const rows = await stored(bot);
      expect({ rows, answer: answers[i]!.message_id }).toEqual({ rows: { first: rows.first!, second: rows.second! }, answer: rows.second });
      expect(Number(rows.second)).toBe(Number(rows.first) + 1);
      expect((await updates(bot)).map((u) => u.message.text)).toEqual(["first", "second"]);
    }
  });

  test("two processes taking turns on one chat: each plans from memory, numbered after the other's messages", async () => {
    const bot = await createTestBot(client, owner, "two processes");
    const other = await testClient(); // another process: its own committer and memory, the same database
    try {
      const sendVia = async (c: Client, text: string) => {
        const res = await c.post("/api/messages", { bot_id: bot.id, chat_id: "c1", text });
        expect(res.status).toBe(200);
        return res.body.result;
      };
      await sendVia(client, "a0");
      await sendVia(other, "b0");
      const before = { ...committer().fromMemory };
      const answers = [];
      for (let i = 1; i <= 3; i++) answers.push(await sendVia(client, `a${i}`), await sendVia(other, `b${i}`));
      // The other process's messages touch the chat but change nothing a plan reads: ours are all planned from memory.
      expect(since(before)).toEqual({ committed: 3, refused: 0 });
      const rows = await stored(bot);
      expect(answers.map((a) => a.message_id)).toEqual(["a1", "b1", "a2", "b2", "a3", "b3"].map((t) => rows[t]));
      expect(Object.values(rows).map(Number)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      const got = await updates(bot);
      expect(got.map((u) => [u.message.text, u.message.message_id])).toEqual(Object.entries(rows));
      expect(got.map((u) => u.update_id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    } finally {
      await other.platform.close();
    }
  });

  test("a chat an operator closed meanwhile: the check refuses the plan, the message reopens the chat and is stored once", async () => {
    const bot = await createTestBot(client, owner, "closed");
    const first = await send(bot, "c1", "first");
    expect((await client.patch(`/api/inbox/${first.conversation_id}`, { status: "closed" }, owner.token)).status).toBe(200);
    const before = { ...committer().fromMemory };
    await send(bot, "c1", "after closing");
    expect(since(before)).toEqual({ committed: 0, refused: 1 });
    const [conversation] = await client.platform.db.query<{ status: string; message_count: number }>(
      `select status::text, message_count from conversations where id = $1`, [first.conversation_id]);
    expect(conversation).toEqual({ status: "open", message_count: 2 });
    expect(Object.keys(await stored(bot))).toEqual(["first", "after closing"]);
    // Planned from the look-ups, it is remembered again: the next one is one round trip.
    await send(bot, "c1", "next");
    expect(since(before)).toEqual({ committed: 1, refused: 1 });
  });

  test("a chat closed by a transaction that held the bot's lock while the plan waited for it: the check sees the close (PostgreSQL)", async () => {
    if (!production()) return; // PGlite runs one statement at a time: nothing waits for a lock there
    const bot = await createTestBot(client, owner, "closed under the lock");
    const first = await send(bot, "c1", "first");
    const before = { ...committer().fromMemory };
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const lockGranted = new Promise<void>((resolve) => (locked = resolve));
    // Another writer locks the bot's row first, then closes the chat while the message's write waits behind it.
    const closing = client.platform.db.transaction(async (tx) => {
      await tx.query(`select 1 from bots where id = $1 for update`, [bot.id]);
      locked();
      await held;
      await tx.query(`update conversations set status = 'closed' where id = $1`, [first.conversation_id]);
    });
    await lockGranted;
    const sent = send(bot, "c1", "while locked");
    let waitedBehindTheLock = false;
    for (let tries = 0; tries < 100 && !waitedBehindTheLock; tries++) {
      const [waiting] = await client.platform.db.query<{ n: number }>(
        `select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and query like '%intake_write_known_v1%'`);
      waitedBehindTheLock = waiting!.n > 0;
      if (!waitedBehindTheLock) await Bun.sleep(20);
    }
    release();
    await closing;
    await sent;
    // Its snapshot was taken after the lock was granted: it saw the chat closed, refused the plan, and the
    // message, planned again from the look-ups, reopened the chat.
    expect(since(before)).toEqual({ committed: 0, refused: 1 });
    const [conversation] = await client.platform.db.query<{ status: string; message_count: number }>(
      `select status::text, message_count from conversations where id = $1`, [first.conversation_id]);
    expect({ conversation, waitedBehindTheLock }).toEqual({ conversation: { status: "open", message_count: 2 }, waitedBehindTheLock: true });
  });

  test("a chat handed to a human meanwhile: the bot gets no update for the next message", async () => {
    const bot = await createTestBot(client, owner, "handoff");
    await send(bot, "c1", "first");
    expect((await client.post(`/api/bots/${bot.id}/handoff`, { chat_id: "c1" }, bot.token)).status).toBe(200);
    const before = { ...committer().fromMemory };
    await send(bot, "c1", "for the human");
    expect(since(before).refused).toBe(1);
    expect((await updates(bot)).filter((u) => u.message).map((u) => u.message.text)).toEqual(["first"]);
  });

  test("a contact an operator renamed meanwhile: the bot sees the new name", async () => {
    const bot = await createTestBot(client, owner, "renamed");
    await send(bot, "c1", "first");
    const [contact] = await client.platform.db.query<{ id: string }>(`select id from contacts where bot_id = $1`, [bot.id]);
    expect((await client.patch(`/api/contacts/${contact!.id}`, { name: "Ada L." }, owner.token)).status).toBe(200);
    const before = { ...committer().fromMemory };
    await send(bot, "c1", "second");
    expect(since(before).refused).toBe(1);
    const second = (await updates(bot)).find((u) => u.message?.text === "second");
    expect(second.message.from.first_name).toBe("Ada L.");
  });

  test("a committed client_message_id sent again: its unique index refuses the plan and the sender gets the first message", async () => {
    const bot = await createTestBot(client, owner, "repeat");
    const first = await send(bot, "c1", "once", "k-1");
    const before = { ...committer().fromMemory };
    const again = await send(bot, "c1", "once", "k-1");
    expect(since(before)).toEqual({ committed: 0, refused: 1 });
    expect(again.message_id).toBe(first.message_id);
    expect(Object.keys(await stored(bot))).toEqual(["once"]);
    // A new id in the same chat is planned from memory again.
    await send(bot, "c1", "twice", "k-2");
    expect(since(before).committed).toBe(1);
  });

  test("text, metadata and a sender that need escaping are stored as sent, and the chat's next message is still planned from memory", async () => {
    const bot = await createTestBot(client, owner, "escaping");
    const text = `He said "hi" \\ then {"a":[1,"b"]}\n\ttabbed 'quoted' — naïve 日本語 🙂 \\u0041`;
    const metadata = { note: `"quoted" \\ back\nslash`, nested: { list: [1, "two", null, { deep: "🙂" }] }, empty: "" };
    const user = { id: `u "1" \\ 🙂`, first_name: `Zoë "Z"`, last_name: `O'Brien \\ Jr.` };
    const first = await client.post("/api/messages", { bot_id: bot.id, chat_id: `chat "1" \\ 🙂`, text, metadata, user });
    expect(first.status).toBe(200);
    const before = { ...committer().fromMemory };
    const second = await client.post("/api/messages", { bot_id: bot.id, chat_id: `chat "1" \\ 🙂`, text: `${text} again`, user });
    expect(second.status).toBe(200);
    // The check compared the remembered sender and chat with the stored rows and found them equal.
    expect(since(before)).toEqual({ committed: 1, refused: 0 });

    const rows = await client.platform.db.query<{ text: string; metadata: Record<string, unknown> }>(
      `select text, metadata from messages where bot_id = $1 and direction = 'in' order by message_id`, [bot.id]);
    expect(rows.map((r) => r.text)).toEqual([text, `${text} again`]);
    expect(rows[0]!.metadata).toEqual(metadata);
    const [contact] = await client.platform.db.query<{ external_user_id: string; first_name: string; last_name: string }>(
      `select external_user_id, first_name, last_name from contacts where bot_id = $1`, [bot.id]);
    expect(contact).toEqual({ external_user_id: user.id, first_name: user.first_name, last_name: user.last_name });
    const got = (await updates(bot)).filter((u) => u.message).map((u) => [u.message.text, u.message.chat.id, u.message.from.first_name]);
    expect(got).toEqual([[text, `chat "1" \\ 🙂`, user.first_name], [`${text} again`, `chat "1" \\ 🙂`, user.first_name]]);
  });
});

const input = (row: IncomingInput["bot"], chatId: string, text: string, clientMessageId: string | null = null): IncomingInput => ({
  bot: row, channel: "custom_api", text, createdAt: new Date(), contactKey: `chat:${chatId}`,
  contact: { externalUserId: null, firstName: null, lastName: null, name: null, email: null, phone: null },
  fromId: null, metadata: {}, clientMessageId,
});

/** Statistics the look-ups' plans are never kept for. */
const NEVER_ENOUGH: AnalysedRows = { rows: Number.MAX_SAFE_INTEGER, rowsPerBot: Number.MAX_SAFE_INTEGER };

/**
 * Messages into one chat through a committer of our own, each `[text, client id]`: the last
 * one's transaction as recordingStatements records it.
 */
async function secondTransaction(name: string, messages: [string, string | null][]): Promise<string[]> {
  const bot = await createTestBot(client, owner, name);
  const row = (await findBotById(client.platform.db, bot.id))!;
  const events: string[] = [];
  const recording = recordingStatements(client.platform.db, events);
  const own = new IntakeCommitter({ db: recording, logInTransaction: client.platform.outbox.logInTransaction, keptLookupPlanStatistics: NEVER_ENOUGH });
  const actor = new IntakeActor({ ...client.wiring.intake, committer: own }, bot.id);
  for (const [i, [text, clientId]] of messages.entries()) {
    if (i === messages.length - 1) events.length = 0;
    await actor.submit({ chatId: "c1", input: input(row, "c1", text, clientId) }).accepted;
  }
  await actor.onStop();
  return events;
}

test("a remembered chat's message is not looked up; on PostgreSQL it is one statement committed alone (no BEGIN, no COMMIT), on PGlite the lock, then the write", async () => {
  const sent = sentOnly(await secondTransaction("one statement", [["first", null], ["second", null]]));
  const lookedUp = sent.some((e) => e.startsWith("select (select json_agg(t)"));
  expect({ sent, lookedUp, order: orderOf(sent) })
    .toEqual({ sent, lookedUp: false, order: production() ? "alone" : "settings, lock, write" });
  if (production()) expect(sent).toHaveLength(1);
});

/** The order of the settings, the lock, the write and the write alone (outside a transaction) among the statements sent. */
function orderOf(sent: string[]): string {
  const parts = [
    ["settings", "select set_config('plan_cache_"], ["settings", "begin; set local plan_cache_mode"], ["lock", "select id, last_message_id, la"],
    ["write", "with held as (select intake_plan_"], ["alone", "outside: select w_contacts as contacts,"],
  ] as const;
  return parts.map(([name, start]) => [name, sent.findIndex((e) => e.startsWith(start))] as const)
    .filter(([, at]) => at >= 0).sort((a, b) => a[1] - b[1]).map(([name]) => name).join(", ");
}

test("without statistics a plan from memory still runs on kept plans from the start, with client ids or without: nothing it reads needs them", async () => {
  const without = sentOnly(await secondTransaction("kept check", [["first", null], ["second", null]]));
  const withIds = sentOnly(await secondTransaction("kept with ids", [["first", "id-1"], ["second", "id-2"]]));
  // On PostgreSQL the function written alone carries the settings itself (test/db/intake-write-alone.test.ts).
  const expected = production() ? "alone" : "settings, lock, write";
  expect({ without, withIds, order: [orderOf(without), orderOf(withIds)] }).toEqual({ without, withIds, order: [expected, expected] });
});
