// Delivery latency: POST /api/messages → a parked get-updates returns the update.
// Printed next to a baseline measured in the same run: two bare loopback HTTP round trips
// plus one committed insert on the same database. Runs in the mode the env names
// (DATABASE_URL + NATS_URL → Postgres + JetStream; neither → embedded PGlite in memory).
//   bun bench/delivery.ts [--runs 300]
import { loadConfig } from "../src/config.ts";
import { migrate } from "../src/db/migrate.ts";
import { createLogger } from "../src/logger.ts";
import { openDb } from "../src/platform.ts";
import { startServer } from "../src/server.ts";
import { measure, report } from "./stats.ts";

const runsArg = process.argv.indexOf("--runs");
const RUNS = runsArg > 0 ? Number(process.argv[runsArg + 1]) : 300;

const config = { ...loadConfig({ ...process.env, JWT_SECRET: process.env.JWT_SECRET ?? "bench-secret-bench-secret-bench-secret!", RATE_LIMITS: "off" }), port: 0, host: "127.0.0.1" };
const db = await openDb(config, true);
await migrate(db);
const server = await startServer(config, createLogger({ logLevel: "silent", logPretty: false }), { db, migrate: false });

const json = async (path: string, body: unknown, token?: string) => {
  const res = await fetch(`${server.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  return (await res.json()) as any;
};
const { token } = (await json("/api/auth/register", { email: `bench-${Date.now()}@example.com`, password: "secret123" })).result;
const bot = (await json("/api/bots", { name: "Latency" }, token)).result;

// Baseline: what any design must pay at least.
const bare = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("ok") });
await db.query(`create table if not exists bench_commit (id serial primary key, at timestamptz default now())`);
const baseline = await measure(RUNS, async () => {
  await fetch(`http://127.0.0.1:${bare.port}/`).then((r) => r.text());
  await db.query(`insert into bench_commit default values`);
  await fetch(`http://127.0.0.1:${bare.port}/`).then((r) => r.text());
});

let offset = 0;
// Timed from the POST, not from the poll: parking the poll first is not part of delivery.
// Each side is timed on its own: when the bot has the update, and when the sender has its
// acknowledgement (which waits until the update is durable in the log as well).
const delivery: number[] = [];
const acknowledged: number[] = [];
for (let i = 0; i < RUNS; i++) {
  const poll = fetch(`${server.url}/api/bots/${bot.id}/get-updates?timeout=10&offset=${offset}`, {
    headers: { authorization: `Bearer ${bot.token}` },
  }).then((r) => r.json() as Promise<any>);
  await Bun.sleep(25); // let the poll park (confirming the previous batch takes a few round trips)
  const started = performance.now();
  const post = json("/api/messages", { bot_id: bot.id, chat_id: `c${i % 20}`, text: `m${i}` }).then((answer) => {
    acknowledged.push(performance.now() - started);
    return answer;
  });
  const got = await poll;
  delivery.push(performance.now() - started);
  if (!(await post).ok) throw new Error("POST /api/messages failed");
  offset = got.result[got.result.length - 1].update_id + 1;
}
delivery.sort((a, b) => a - b);
acknowledged.sort((a, b) => a - b);

console.log(`mode: ${config.mode}, runs: ${RUNS}`);
console.log(report("baseline: 2 HTTP round trips + commit", baseline));
console.log(report("POST message → parked poll returns", delivery, baseline));
console.log(report("POST message → its acknowledgement", acknowledged, baseline));
bare.stop(true);
await server.stop();
await db.close();
