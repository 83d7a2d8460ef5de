// The plans PostgreSQL keeps for the group commit's statements (db/intake.ts, db/intake-write.ts).
// Their texts never vary, so a connection keeps ONE generic plan for each, made with whatever the
// tables held then: each part that reads a table (the look-ups, the touch of known conversations,
// the check of a plan from memory) must probe a key, or it would scan that table for good.
import { expect, test } from "bun:test";
import type { Db, Queryable } from "../../src/db/driver.ts";
import { findIntakeState, lockBots } from "../../src/db/intake.ts";
import { writeIncomingBatch } from "../../src/db/intake-write.ts";
import { intakeTablesAnalyzed, keepOnePlanPerStatement } from "../../src/db/intake-plans.ts";
import { plannedStateHolds } from "../../src/db/intake-guard.ts";
import { sharedDb } from "../support/harness.ts";
import { emptyBatch, NIL } from "../support/intake-batch.ts";
import { seedChats } from "../support/seed-chats.ts";

/** The text and parameter count of the statement `send` makes, answered with `rows` instead of a database. */
async function sent(send: (db: Queryable) => Promise<unknown>, rows: unknown[]): Promise<{ text: string; params: number }> {
  let text = "";
  let params = 0;
  const capture: Queryable = {
    async query<T>(t: string, p: unknown[] = []) {
      text = t;
      params = p.length;
      return rows as T[];
    },
    async exec() {},
  };
  await send(capture);
  return { text, params };
}

/**
 * EXPLAIN of the plan a connection keeps for `text` once `keep` has set the transaction up,
 * executed with these literal arguments; the prepared statement is gone afterwards.
 */
async function keptPlan(db: Db, text: string, args: string, keep: (tx: Queryable) => Promise<void>): Promise<string> {
  const name = `intake_plan_${crypto.randomUUID().replace(/-/g, "")}`;
  return db.transaction(async (tx) => {
    await keep(tx);
    await tx.exec(`prepare ${name} as ${text}`);
    try {
      return (await tx.query<Record<string, string>>(`explain execute ${name}(${args})`)).map((row) => Object.values(row)[0]).join("\n");
    } finally {
      await tx.exec(`deallocate ${name}`);
    }
  });
}

/**
 * Each scan of `table`'s primary key in `plan` (EXPLAIN's text), and whether it is a probe: an
 * `Index Cond` below it. An index scan without one reads the whole index.
 */
function primaryKeyScans(plan: string, table: string): { probe: boolean }[] {
  const lines = plan.split("\n");
  return lines.flatMap((line, i) => {
    if (!new RegExp(`(Index (Only )?Scan using|Bitmap Index Scan on) ${table}_pkey\\b`).test(line)) return [];
    const depth = line.search(/\S/);
    const end = lines.findIndex((l, j) => j > i && l.search(/\S/) <= depth);
    return [{ probe: lines.slice(i + 1, end < 0 ? undefined : end).some((l) => l.includes("Index Cond:")) }];
  });
}

/** The plan PostgreSQL would settle on in auto mode after a few runs. */
const genericPlan = (tx: Queryable) => tx.exec("set local plan_cache_mode = force_generic_plan");

/**
 * Stands in for the estimates of a table of a few hundred rows, which favour a hash join over a
 * whole primary-key index: the check of a plan from memory was kept so, and each lone message's
 * write read every conversation and contact (1.30 ms against 0.72 at 1,000 chats, docs/decisions.md
 * round 24). A plan that still probes by key with nested loops off does not depend on such estimates.
 */
const joinsPreferred = (tx: Queryable) => tx.exec("set local enable_nestloop = off");

/** A batch that starts a conversation (the write's text with the creating parts), and one that only adds to a known one. */
const shapes = {
  creating: { ...emptyBatch(NIL, NIL), conversations: [{ id: NIL, number: 1, chatId: "c", channel: "api", contactId: NIL, messageCount: 1, lastMessageId: NIL, latestAt: new Date(0), earliestAt: new Date(0) }] },
  known: emptyBatch(NIL, NIL),
};

for (const [shape, batch] of Object.entries(shapes)) {
  test(`the write's one kept plan (${shape}) reads its tables by key alone, whatever they hold; the transaction ends the settings`, async () => {
    const db = await sharedDb();
    const { text, params } = await sent((db) => writeIncomingBatch(db, [batch]), [{ contacts: null, conversations: null }]);
    let mode = "";
    // Every batch's write runs behind keepOnePlanPerStatement, on either path and driver (actors/intake-committer.ts).
    const plan = await keptPlan(db, text, Array.from({ length: params }, () => "'{}'").join(", "), async (tx) => {
      await keepOnePlanPerStatement(tx);
      mode = (await tx.query<{ mode: string }>("select current_setting('plan_cache_mode') as mode"))[0]!.mode;
      await joinsPreferred(tx);
    });
    // Read at least once, and every time by probing its key.
    const byKey = (table: string) => {
      const scans = primaryKeyScans(plan, table);
      return scans.length > 0 && scans.every((scan) => scan.probe);
    };
    const seen = {
      inserts: { messages: plan.includes("Insert on messages"), conversations: /Insert on conversations\b/.test(plan), contacts: /Insert on contacts\b/.test(plan) },
      // The touch of known conversations and their report rows; the check of a plan from memory (conversations and contacts).
      probes: { conversations: byKey("conversations"), report_conversations: byKey("report_conversations"), contacts: byKey("contacts") },
      seqScans: /Seq Scan on/.test(plan),
      // The rows it only adds to are never read (an insert's conflict target is no scan).
      readsAddedTo: /Scan (using \S+ )?on (messages|outbox|report_incoming_quarters)\b/.test(plan),
    };
    const creating = shape === "creating";
    expect({ plan, mode, seen }).toEqual({
      plan, mode: "force_generic_plan",
      seen: {
        inserts: { messages: true, conversations: creating, contacts: creating },
        probes: { conversations: true, report_conversations: true, contacts: true }, seqScans: false, readsAddedTo: false,
      },
    });
    // Set for the transaction only: the next one plans as before.
    expect((await db.query<{ seqscan: string }>("select current_setting('enable_seqscan') as seqscan"))[0]!.seqscan).toBe("on");
  });
}

test("the check of a plan from memory probes each row it names by primary key, whatever the planner would rather join", async () => {
  const db = await sharedDb();
  // The check's first text joined the planned rows, and was kept as that hash join.
  const plan = await keptPlan(db, plannedStateHolds(1, 2), "'[]', '[]'", async (tx) => {
    await keepOnePlanPerStatement(tx);
    await joinsPreferred(tx);
  });
  const scans = { conversations: primaryKeyScans(plan, "conversations"), contacts: primaryKeyScans(plan, "contacts") };
  expect({ plan, scans, hashJoins: /Hash/.test(plan) }).toEqual({
    plan, scans: { conversations: [{ probe: true }], contacts: [{ probe: true }] }, hashJoins: false,
  });
});

test("the plan kept for a batch's look-ups probes indexes, never scans a table", async () => {
  const db = await sharedDb();
  const { text } = await sent((db) => findIntakeState(db, [], [], []), [{ twins: null, contacts: null, conversations: null }]);
  const plan = await keptPlan(db, text, `'{${NIL}}', '{a}', '{${NIL}}', '{b}', '{${NIL}}', '{c}'`, genericPlan);
  // Each table reached through one of its indexes (a plain or a bitmap index scan), none read whole; the plan is shown on failure.
  const reached = Object.fromEntries(["messages", "contacts", "conversations"].map((table) => [table,
    new RegExp(`(Index (Only )?Scan using \\S+|Bitmap Heap Scan) on ${table}\\b`).test(plan) && !new RegExp(`Seq Scan on ${table}\\b`).test(plan)]));
  // Messages by their client id: an index of the bot's messages alone reads all of them (a hot bot's every message, per batch).
  const byClientId = /Index Cond: \(\([\w.]*bot_id = k\.bot_id\) AND \([\w.]*client_message_id = k\.client_id\)/.test(plan);
  expect({ plan, reached, byClientId }).toEqual({ plan, reached: { messages: true, contacts: true, conversations: true }, byClientId: true });
});

test("the kept-plan settings are themselves a prepared statement: parsed and planned once per connection, not on every batch", async () => {
  const db = await sharedDb();
  // Without parameters postgres.js sends a statement as a simple query, which PostgreSQL parses and plans every time.
  expect((await sent(keepOnePlanPerStatement, [])).params).toBeGreaterThan(0);
  if (db.kind !== "postgres") return;
  const prepared = await db.transaction(async (tx) => {
    await keepOnePlanPerStatement(tx);
    return tx.query<{ n: number }>(`select count(*)::int as n from pg_prepared_statements where statement like 'select set_config(''plan_cache_mode''%'`);
  });
  expect(prepared[0]!.n).toBe(1);
});

test("once a thousand rows are analysed, the look-ups' kept plan probes the unique (bot, key) indexes on both columns", async () => {
  const db = await sharedDb();
  // 1,200 chats of one bot, each with its contact and a message: what a bot that has served a while holds.
  const [botId] = await seedChats(db, 1, 1200);
  // Rows per bot: see test/db/lookup-plan-gate.test.ts (this database's other bots move them).
  expect(await intakeTablesAnalyzed(db, { rows: 1_000, rowsPerBot: 0 })).toBe(true);
  expect(await intakeTablesAnalyzed(db, { rows: Number.MAX_SAFE_INTEGER, rowsPerBot: 0 })).toBe(false);

  const { text } = await sent((db) => findIntakeState(db, [], [], []), [{ twins: null, contacts: null, conversations: null }]);
  const plan = await keptPlan(db, text, `'{${botId}}', '{c1}', '{${botId}}', '{k1}', '{${botId}}', '{chat1}'`, keepOnePlanPerStatement);
  const probes = {
    contacts: /Index Cond: \(\([\w.]*bot_id = \w+\.bot_id\) AND \([\w.]*contact_key = \w+\.key\)\)/.test(plan),
    conversations: /Index Cond: \(\([\w.]*bot_id = \w+\.bot_id\) AND \([\w.]*chat_id = \w+\.chat_id\)\)/.test(plan),
    twins: /Index Cond: \(\([\w.]*bot_id = \w+\.bot_id\) AND \([\w.]*client_message_id = \w+\.client_id\)\)/.test(plan),
  };
  expect({ plan, probes }).toEqual({ plan, probes: { contacts: true, conversations: true, twins: true } });
});

test("a group commit locks its bots' rows in id order, so two processes' commits never wait on each other in a cycle", async () => {
  const db = await sharedDb();
  const { text } = await sent((db) => lockBots(db, [NIL]), []);
  // Whatever the planner picks: without the primary key's ordered scan, the statement itself must sort.
  const plan = await db.transaction(async (tx) => {
    await tx.exec("set local enable_indexscan = off; set local enable_bitmapscan = off");
    return (await tx.query<Record<string, string>>(`explain ${text.replace("$1::uuid[]", `'{${NIL}}'::uuid[]`)}`)).map((row) => Object.values(row)[0]).join("\n");
  });
  // The rows are locked as they leave the node below LockRows: that node must deliver them sorted by id.
  const lines = plan.split("\n");
  const below = lines[lines.findIndex((l) => l.includes("LockRows")) + 1] ?? "";
  expect({ plan, sorted: /Sort\b/.test(below) }).toEqual({ plan, sorted: true });
});
