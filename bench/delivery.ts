// Delivery latency: POST /api/messages → a parked get-updates returns the update.
// Printed next to a baseline measured in the same run: two bare loopback HTTP round trips
// plus one committed insert on the same database, back to back and again after the idle pause
// each poll round has (the machine's price for waking idle cores). Runs in the mode the env names
// (DATABASE_URL + NATS_URL → Postgres + JetStream; neither → embedded PGlite in memory).
// The bot and the sender run in a process of their own (bench/delivery-client.ts), as real
// clients do; --in-process runs them on the server's event loop instead (how it measured before
// this option: a client there reads its answer only after the server's other work of that turn).
// --seed N first gives a second bot (another user's) N chats (contacts, conversations, a message each) and runs
// ANALYZE, as a database that has served a while has statistics: only then do the intake's
// look-ups run on kept plans (src/actors/lookup-plan-gate.ts), which a fresh database never shows.
// --warmup N unmeasured rounds of each long poll first (default 1000), as a server that has been
// serving runs; the product's first rounds after its start are printed on a line of their own.
// BENCH_PRODUCT_SQL (what-if, as in bench/ingest.ts): SQL run on the database after its migrations,
// before the bot is made: a write function replaced or an index dropped, priced against a run
// without it in the same minutes (docs/decisions.md round 38).
// PostgreSQL's own time per call is printed too where the server loads pg_stat_statements with
// `pg_stat_statements.track = all` (a private instance started for the purpose: the machine's
// shared one does not): the product's write call beside the statements run inside it, and the
// naive transaction's statements (docs/decisions.md round 40).
//   bun bench/delivery.ts [--runs 300] [--warmup 1000] [--in-process] [--seed 2000]
import { startBenchServer } from "./server.ts";
import { numberArg, percentile, report } from "./stats.ts";
import { seedChats } from "../test/support/seed-chats.ts";
import { runClient, type ClientOptions, type ClientResult } from "./delivery-client.ts";

const RUNS = numberArg("runs", 300);
/** Why: the product's median settles after ~900 rounds (3.4 → 2.7 ms per 300 here, docs/decisions.md round 26). */
const WARMUP = numberArg("warmup", 1000);

const { config, db, server, request } = await startBenchServer();
if (process.env.BENCH_PRODUCT_SQL) await db.exec(process.env.BENCH_PRODUCT_SQL);
const json = (path: string, body: unknown, token?: string) => request("POST", path, body, token);
const { token } = (await json("/api/auth/register", { email: `bench-${Date.now()}@example.com`, password: "secret123" })).result;
const bot = (await json("/api/bots", { name: "Latency" }, token)).result;
// Another user's bot with N chats, then ANALYZE (the same seeding the plan tests use).
const SEED_CHATS = numberArg("seed", 0);
if (SEED_CHATS > 0) await seedChats(db, 1, SEED_CHATS);

// Baselines: what any design must pay at least, measured in the same run on the same database.
// A bare round trip, and a naive long poll: a parked GET that the next POST answers once it has
// committed its message in one transaction (upsert the chat, insert the message), paced like the
// product's runs, so both pay the same wake-ups and the same lone commit.
await db.exec(`
  create table if not exists bench_commit (id serial primary key, at timestamptz default now());
  create table if not exists bench_poll_chats (id bigserial primary key, chat_id text unique not null, message_count int not null default 0);
  create table if not exists bench_poll_messages (id bigserial primary key, chat bigint not null references bench_poll_chats (id), text text not null);`);
let parkedNaive: ((body: string) => void) | undefined;
const bare = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  fetch: async (request) => {
    const path = new URL(request.url).pathname;
    if (path === "/commit") await db.query(`insert into bench_commit default values`);
    if (path === "/naive-poll") return new Response(await new Promise<string>((resolve) => (parkedNaive = resolve)));
    if (path === "/naive-message") {
      const { chat_id, text } = (await request.json()) as { chat_id: string; text: string };
      const id = await db.transaction(async (tx) => {
        const [chat] = await tx.query<{ id: string }>(
          `insert into bench_poll_chats (chat_id, message_count) values ($1, 1)
           on conflict (chat_id) do update set message_count = bench_poll_chats.message_count + 1 returning id`, [chat_id]);
        const [message] = await tx.query<{ id: string }>(`insert into bench_poll_messages (chat, text) values ($1, $2) returning id`, [chat!.id, text]);
        return message!.id;
      });
      parkedNaive?.(JSON.stringify({ ok: true, result: [{ update_id: id, message: { chat: { id: chat_id }, text } }] }));
      parkedNaive = undefined;
      return Response.json({ ok: true, result: { id } });
    }
    return new Response("ok");
  },
});

const statementTimes = await startStatementTimes();
const options: ClientOptions = { runs: RUNS, warmup: WARMUP, server: server.url, bare: `http://127.0.0.1:${bare.port}`, bot: { id: bot.id, token: bot.token } };
let result: ClientResult;
if (process.argv.includes("--in-process")) result = await runClient(options);
else {
  const child = Bun.spawn([process.execPath, `${import.meta.dir}/delivery-client.ts`, JSON.stringify(options)], { stdout: "pipe", stderr: "inherit" });
  const [out, code] = await Promise.all([new Response(child.stdout).text(), child.exited]);
  if (code !== 0) throw new Error(`delivery-client exited with ${code}`);
  result = JSON.parse(out) as ClientResult;
}
const [baseline, pacedBaseline, naivePoll, delivery, acknowledged, coldDelivery] = [
  result.baseline, result.pacedBaseline, result.naivePoll, result.delivery, result.acknowledged, result.coldDelivery,
].map((times) => times.sort((a, b) => a - b)) as [number[], number[], number[], number[], number[], number[]];

console.log(`mode: ${config.mode}, runs: ${RUNS} after ${WARMUP} unmeasured, clients: ${process.argv.includes("--in-process") ? "in the server's process" : "own process"}`);
console.log(report("baseline: 2 HTTP round trips + commit", baseline));
console.log(report("baseline after the idle pause", pacedBaseline, baseline));
console.log(report("naive: POST → its parked poll returns", naivePoll, baseline));
console.log(report("POST message → parked poll returns", delivery, baseline) + `  (×${(percentile(delivery, 50) / percentile(naivePoll, 50)).toFixed(2)} naive)`);
console.log(report("POST message → its acknowledgement", acknowledged, baseline));
if (coldDelivery.length) console.log(report(`first ${coldDelivery.length} after start → parked poll`, coldDelivery, baseline));
if (statementTimes) console.log(await statementTimes());
bare.stop(true);
await server.stop();
await db.close();

/**
 * Resets pg_stat_statements on this database and returns what prints its means afterwards, or
 * undefined where the server does not load it. Means over every round (warm-up included): its
 * executor time only, so a call's start-up and end count in the statement that runs it, not in
 * itself; the gap between the write call and the statements inside it is theirs.
 */
async function startStatementTimes(): Promise<(() => Promise<string>) | undefined> {
  if (config.mode !== "production") return undefined;
  try {
    // The setting exists only where the server loaded the library.
    const [tracked] = await db.query<{ setting: string }>(`select setting from pg_settings where name = 'pg_stat_statements.track'`);
    if (tracked?.setting !== "all") return undefined;
    await db.exec(`create extension if not exists pg_stat_statements`);
    await db.query(`select pg_stat_statements_reset()`);
  } catch {
    return undefined;
  }
  return async () => {
    const rows = await db.query<{ query: string; toplevel: boolean; calls: string; mean: number }>(
      `select query, toplevel, calls, mean_exec_time as mean from pg_stat_statements
       where dbid = (select oid from pg_database where datname = current_database())`);
    const mean = (match: (query: string) => boolean, toplevel: boolean) => {
      const row = rows.filter((r) => r.toplevel === toplevel && match(r.query)).sort((a, b) => Number(b.calls) - Number(a.calls))[0];
      return row ? `${row.mean.toFixed(3)} ms` : "—";
    };
    return [
      "PostgreSQL's executor time per call (pg_stat_statements, means over every round):",
      `  product: the write call ${mean((q) => q.includes("from intake_write_known_v1("), true)}` +
        ` (inside it: the write ${mean((q) => q.startsWith("with held as"), false)}, the lock ${mean((q) => /from bots where id = any\(\$2::uuid\[\]\) order by id for update/.test(q), false)})`,
      `  naive: the upsert ${mean((q) => q.includes("insert into bench_poll_chats"), true)}, the insert ${mean((q) => q.includes("insert into bench_poll_messages"), true)}`,
    ].join("\n");
  };
}
