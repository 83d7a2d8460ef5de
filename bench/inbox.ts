// Inbox list and search at scale: seeds 100k conversations / 1M messages into Postgres
// (DATABASE_URL, or a throwaway database on 127.0.0.1) and prints p50/p95 for the inbox
// list and for search, next to a baseline (one trivial query over the same pool).
//   bun bench/inbox.ts [--conversations 100000] [--messages-per 10] [--runs 200] [--keep]
// --keep leaves the seeded database in place (its name is printed) to read query plans.
import postgres from "postgres";
import { loadConfig } from "../src/config.ts";
import { migrate } from "../src/db/migrate.ts";
import { openPostgres } from "../src/db/postgres.ts";
import { listConversations } from "../src/domain/inbox.ts";
import { createLogger } from "../src/logger.ts";
import { openPlatform } from "../src/platform.ts";
import { measure, numberArg, report } from "./stats.ts";

const CONVERSATIONS = numberArg("conversations", 100_000);
const MESSAGES_PER = numberArg("messages-per", 10);
const RUNS = numberArg("runs", 200);

const adminUrl = "postgres://postgres@127.0.0.1:5432/postgres";
const dbName = `bench_inbox_${Date.now()}`;
const admin = postgres(process.env.BENCH_ADMIN_URL ?? adminUrl, { max: 1, onnotice: () => {} });
await admin.unsafe(`create database ${dbName}`);
const url = (process.env.BENCH_ADMIN_URL ?? adminUrl).replace(/\/[^/]*$/, `/${dbName}`);

try {
  const db = await openPostgres(url);
  await migrate(db);
  console.log(`seeding ${CONVERSATIONS} conversations × ${MESSAGES_PER} messages into ${dbName} …`);
  const t0 = performance.now();
  // Seeding a million rows takes longer than the product's 5 s query deadline on a busy
  // machine: it goes through its own connection, without one.
  const seedSql = postgres(url, { max: 1, onnotice: () => {} });
  const seed = { query: <T>(text: string, params: unknown[] = []) => seedSql.unsafe(text, params as never[]) as unknown as Promise<T[]> };
  const [user] = await seed.query<{ id: string }>(`insert into users (email, password_hash) values ('bench@example.com', 'x') returning id`);
  const ownerId = user!.id;
  const [bot] = await seed.query<{ id: string }>(
    `insert into bots (owner_id, name, username, token_hash, token_encrypted, widget_key, integration_key)
     values ($1, 'Bench', 'bench_bot', 'h', 'e', 'wk_bench', 'ik_bench') returning id`, [ownerId]);
  const botId = bot!.id;
  await seed.query(`insert into bot_members (bot_id, user_id, role) values ($1, $2, 'owner')`, [botId, ownerId]);
  await seed.query(
    `insert into contacts (bot_id, owner_id, number, contact_key, name, email, phone)
     select $1, $2, g, 'ext:' || g, 'Person ' || g, 'person' || g || '@example.com', '+1555' || lpad(g::text, 7, '0')
     from generate_series(1, $3::int) g`, [botId, ownerId, CONVERSATIONS]);
  await seed.query(
    `insert into conversations (bot_id, owner_id, number, chat_id, channel, status, contact_id, message_count, last_message_at)
     select $1, $2, c.number, 'chat-' || c.number, 'widget', (array['new','open','waiting','closed'])[1 + c.number % 4], c.id, $3,
            now() - (c.number || ' seconds')::interval
     from contacts c where c.bot_id = $1`, [botId, ownerId, MESSAGES_PER]);
  await seed.query(
    `insert into messages (bot_id, owner_id, conversation_id, message_id, direction, sender, contact_id, text, created_at)
     select $1, $2, cv.id, (cv.number - 1) * $3 + k, 'in', 'user', cv.contact_id,
            'message ' || k || ' about order ' || (cv.number * 7919 % 1000003) || ' ' || md5(cv.number::text || k),
            cv.last_message_at - ((($3 - k)) || ' minutes')::interval
     from conversations cv, generate_series(1, $3::int) k where cv.bot_id = $1`, [botId, ownerId, MESSAGES_PER]);
  await seed.query(`analyze`);
  await seedSql.end();
  console.log(`seeded in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

  const config = { ...loadConfig({ DATABASE_URL: url, NATS_URL: "nats://127.0.0.1:4222", JWT_SECRET: "x".repeat(32) }), natsUrl: undefined };
  const platform = await openPlatform(config, createLogger({ logLevel: "silent", logPretty: false }), { db, migrate: false });
  const baseline = await measure(RUNS, () => db.query("select 1"));
  console.log(report("baseline: select 1", baseline));
  console.log(report("inbox list (limit 100)", await measure(RUNS, () => listConversations(platform, ownerId, {})), baseline));
  console.log(report("inbox list status=open", await measure(RUNS, () => listConversations(platform, ownerId, { status: "open" })), baseline));
  console.log(report("search contact email", await measure(RUNS, (i) => listConversations(platform, ownerId, { q: `person${(i * 37) % CONVERSATIONS + 1}@` })), baseline));
  console.log(report("search message text (rare)", await measure(RUNS, (i) => listConversations(platform, ownerId, { q: `order ${(i * 7919 * 13) % 1000003}` })), baseline));
  console.log(report("search message text (md5 frag)", await measure(RUNS, (i) => listConversations(platform, ownerId, { q: `${(i * 99991).toString(16).slice(0, 5)}` })), baseline));
  const plan = await db.query<{ "QUERY PLAN": string }>(
    `explain select id from conversations where bot_id = $1 order by last_message_at desc, id desc limit 100`, [botId]);
  console.log("list plan:", plan.map((r) => r["QUERY PLAN"]).join(" | "));
  const searchPlan = await db.query<{ "QUERY PLAN": string }>(
    `explain select conversation_id from messages where bot_id = $1 and text ilike '%order 4242%'`, [botId]);
  console.log("search plan:", searchPlan.map((r) => r["QUERY PLAN"]).join(" | "));
  await platform.close();
  await db.close();
} finally {
  if (process.argv.includes("--keep")) console.log(`kept database ${dbName}`);
  else await admin.unsafe(`drop database if exists ${dbName} with (force)`);
  await admin.end();
}
