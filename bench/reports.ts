// Reports at scale: seeds 100k conversations / 1M messages over 90 days (three channels,
// handoffs, operator replies, closes, ratings, assignees) and prints p50/p95 of each report
// through the HTTP app, next to two baselines measured in the same run: a bare `select 1`
// round trip, and the naive full scan of messages a heatmap would need without the roll-up.
// Then what the roll-up triggers cost per message on the write path (with vs without them).
//   bun bench/reports.ts production|embedded [--conversations 100000] [--messages-per 10] [--runs 100] [--keep]
// --keep leaves the seeded production database in place (its name is printed) to read query plans.
import postgres from "postgres";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../src/config.ts";
import type { Db, Queryable } from "../src/db/driver.ts";
import { migrate } from "../src/db/migrate.ts";
import { openPglite } from "../src/db/pglite.ts";
import { openPostgres } from "../src/db/postgres.ts";
import { createApp } from "../src/http/app.ts";
import { createLogger } from "../src/logger.ts";
import { openPlatform } from "../src/platform.ts";
import { composeServices } from "../src/services.ts";
import { measure, numberArg, report } from "./stats.ts";

const mode = process.argv[2] === "embedded" ? "embedded" : "production";
const CONVERSATIONS = numberArg("conversations", 100_000);
const MESSAGES_PER = numberArg("messages-per", 10);
const RUNS = numberArg("runs", 100);
const DAYS = 90;

const adminUrl = process.env.BENCH_ADMIN_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const dbName = `bench_reports_${Date.now()}`;
const admin = mode === "production" ? postgres(adminUrl, { max: 1, onnotice: () => {} }) : undefined;
const dataDir = mode === "embedded" ? mkdtempSync(join(tmpdir(), "bench-reports-")) : undefined;

async function openBenchDb(): Promise<{ db: Db; seed: Queryable; url?: string }> {
  if (admin) {
    await admin.unsafe(`create database ${dbName}`);
    const url = adminUrl.replace(/\/[^/]*$/, `/${dbName}`);
    // Seeding a million rows outlasts the product's query deadline: its own connection, without one.
    const seedSql = postgres(url, { max: 1, onnotice: () => {} });
    const seed = { query: <T>(text: string, params: unknown[] = []) => seedSql.unsafe(text, params as never[]) as unknown as Promise<T[]>, exec: async (s: string) => void (await seedSql.unsafe(s)) };
    return { db: await openPostgres(url), seed, url };
  }
  const db = await openPglite(dataDir);
  return { db, seed: db };
}

try {
  const { db, seed, url } = await openBenchDb();
  await migrate(db);
  const config = { ...loadConfig({ ...(url ? { DATABASE_URL: url, NATS_URL: "nats://127.0.0.1:4222" } : { DATA_DIR: dataDir! }), JWT_SECRET: "x".repeat(32), RATE_LIMITS: "off" }), natsUrl: undefined };
  const platform = await openPlatform(config, createLogger({ logLevel: "silent", logPretty: false }), { db, migrate: false });
  const services = composeServices(platform);
  const app = createApp(services);
  const registered = await app.handle(new Request("http://bench.local/api/auth/register", {
    method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email: "bench@example.com", password: "secret123" }),
  }));
  const login = ((await registered.json()) as { result: { token: string; user: { id: string } } }).result;
  const ownerId = login.user.id;
  const token = login.token;

  console.log(`${mode}: seeding ${CONVERSATIONS} conversations × ${MESSAGES_PER} messages over ${DAYS} days …`);
  const t0 = performance.now();
  const [bot] = await seed.query<{ id: string }>(
    `insert into bots (owner_id, name, username, token_hash, token_encrypted, widget_key, integration_key)
     values ($1, 'Bench', 'bench_reports_bot', 'h', 'e', 'wk_bench', 'ik_bench') returning id`, [ownerId]);
  const botId = bot!.id;
  await seed.query(`insert into bot_members (bot_id, user_id, role) values ($1, $2, 'owner')`, [botId, ownerId]);
  const agents = await seed.query<{ id: string }>(
    `insert into users (email, password_hash) select 'agent' || g || '@example.com', 'x' from generate_series(1, 5) g returning id`);
  for (const a of agents) await seed.query(`insert into bot_members (bot_id, user_id, role) values ($1, $2, 'operator')`, [botId, a.id]);
  // Conversation g opens at a spread-out time in the last 90 days; its messages follow a minute apart.
  await seed.query(
    `insert into conversations (bot_id, owner_id, number, chat_id, channel, message_count, created_at, updated_at, last_message_at)
     select $1, $2, g, 'chat-' || g, (array['widget','email','custom_api'])[1 + g % 3], $3,
            now() - ((g * 7919 % ($4::int * 86400)) || ' seconds')::interval, now(), now()
     from generate_series(1, $5::int) g`, [botId, ownerId, MESSAGES_PER, DAYS, CONVERSATIONS]);
  // Odd messages come in; even ones go out, from an operator in every fifth conversation.
  await seed.query(
    `insert into messages (bot_id, owner_id, conversation_id, message_id, direction, sender, text, created_at)
     select $1, $2, cv.id, (cv.number - 1) * $3 + k, case when k % 2 = 1 then 'in' else 'out' end,
            case when k % 2 = 1 then 'user' when cv.number % 5 = 0 then 'operator' else 'bot' end,
            'message ' || k, cv.created_at + ((k * 60 + cv.number % 50) || ' seconds')::interval
     from conversations cv, generate_series(1, $3::int) k where cv.bot_id = $1`, [botId, ownerId, MESSAGES_PER]);
  await seed.query(`update conversations set handled_by = 'human', updated_at = created_at + interval '3 minutes' where bot_id = $1 and number % 7 = 0`, [botId]);
  await seed.query(
    `update conversations set status = 'closed', updated_at = created_at + ((number % 86400) || ' seconds')::interval
     where bot_id = $1 and number % 4 <> 0`, [botId]);
  await seed.query(
    `insert into conversation_ratings (conversation_id, bot_id, rating) select id, bot_id, 1 + number % 5 from conversations
     where bot_id = $1 and status = 'closed' and number % 3 = 0`, [botId]);
  await seed.query(
    `insert into conversation_assignees (conversation_id, bot_id, user_id)
     select c.id, c.bot_id, (array[${agents.map((a) => `'${a.id}'::uuid`).join(",")}])[1 + c.number % 5] from conversations c
     where c.bot_id = $1 and c.number % 2 = 0`, [botId]);
  // The steady state: live, a fact row's few updates are HOT and reuse its page (fillfactor 80);
  // the seeding's bulk updates instead left each row four times over, so the tables are compacted.
  await seed.query(`vacuum full report_conversations`);
  await seed.query(`vacuum full report_incoming_quarters`);
  await seed.query(`vacuum analyze`);
  console.log(`seeded in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

  const get = async (path: string) => {
    const res = await app.handle(new Request(`http://bench.local${path}`, { headers: { authorization: `Bearer ${token}` } }));
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    return res.text();
  };
  const q = (path: string, extra: Record<string, string>) => `/api/reports/${path}?${new URLSearchParams({ bot_id: botId, ...extra })}`;
  const from90 = new Date(Date.now() - DAYS * 86_400_000).toISOString();
  const from7 = new Date(Date.now() - 7 * 86_400_000).toISOString();

  const baseline = await measure(RUNS, () => db.query("select 1"));
  console.log(report("baseline: select 1", baseline));
  const naiveRuns = Math.max(3, Math.floor(RUNS / 20));
  const naive = await measure(naiveRuns, () => db.query(
    `select extract(isodow from created_at at time zone 'UTC') d, extract(hour from created_at at time zone 'UTC') h, count(*)
     from messages where bot_id = $1 and direction = 'in' and created_at >= $2 group by 1, 2`, [botId, from90]));
  console.log(report(`baseline: naive heatmap scan (${naiveRuns}×)`, naive, baseline));
  const cases: [string, string][] = [
    ["summary, 30 days", q("summary", {})],
    ["summary, 90 days, Berlin", q("summary", { from: from90, tz: "Europe/Berlin" })],
    ["series conversations/day by channel", q("series", { from: from90, metric: "conversations", by: "channel" })],
    ["series first_response/day, 90 days", q("series", { from: from90, metric: "first_response" })],
    ["series resolution/day by agent", q("series", { from: from90, metric: "resolution", by: "agent" })],
    ["series conversations/hour, 7 days", q("series", { from: from7, metric: "conversations", group: "hour" })],
    ["heatmap, 90 days", q("heatmap", { from: from90 })],
    ["heatmap, 90 days, Kolkata (+5:30)", q("heatmap", { from: from90, tz: "Asia/Kolkata" })],
    ["summary csv, 90 days", q("summary", { from: from90, format: "csv" })],
  ];
  for (const [name, path] of cases) {
    try {
      console.log(report(name, await measure(RUNS, () => get(path)), baseline));
    } catch (err) {
      console.log(`${name.padEnd(34)} failed: ${(err as Error).message.slice(0, 160)}`);
    }
  }

  // The write path: the same inserts with the roll-up triggers on and off, in batches like the
  // intake's group commit (100 per statement) and one at a time like an operator reply.
  let next = CONVERSATIONS * MESSAGES_PER + 1;
  const writeCost = async (label: string, perStatement: number, statements: number) => {
    const conv = await db.query<{ id: string }>(`select id from conversations where bot_id = $1 order by number limit $2`, [botId, statements]);
    const run = async () => {
      const start = performance.now();
      for (let s = 0; s < statements; s++) {
        await db.query(
          `insert into messages (bot_id, owner_id, conversation_id, message_id, direction, sender, text, created_at)
           select $1, $2, $3, $4 + g, 'in', 'user', 'bench', now() from generate_series(0, $5::int - 1) g`,
          [botId, ownerId, conv[s % conv.length]!.id, next, perStatement]);
        next += perStatement;
      }
      return ((performance.now() - start) * 1000) / (statements * perStatement);
    };
    const on1 = await run();
    await db.exec("alter table messages disable trigger report_messages_added");
    const off = await run();
    await db.exec("alter table messages enable trigger report_messages_added");
    const on2 = await run();
    const on = (on1 + on2) / 2;
    console.log(`write ${label.padEnd(28)} with triggers ${on.toFixed(1)} µs/message, without ${off.toFixed(1)} µs/message (+${(on - off).toFixed(1)})`);
  };
  await writeCost("batches of 100 incoming", 100, 50);
  await writeCost("one incoming per statement", 1, 1000);

  const plan = await db.query<{ "QUERY PLAN": string }>(
    `explain select count(*) from report_conversations r where r.bot_id = $1 and r.created_at >= $2`, [botId, from90]);
  console.log("summary plan:", plan.map((r) => r["QUERY PLAN"]).join(" | "));
  await platform.close();
} finally {
  if (admin && process.argv.includes("--keep")) {
    console.log(`kept database ${dbName}`);
    await admin.end();
  } else if (admin) {
    await admin.unsafe(`drop database if exists ${dbName} with (force)`);
    await admin.end();
  }
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
}
