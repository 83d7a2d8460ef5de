// Webhook fan-out: updates/s the webhook worker delivers to a local receiver over many bots,
// with per-chat order checked on arrival. Two phases: a backlog (every update already in the
// log when the worker starts: pure delivery throughput) and live traffic (ingest and delivery
// at once: end-to-end latency from POST /api/messages to the receiver). Printed next to a
// baseline measured in the same run: bare POSTs to the same receiver at the same concurrency.
// Runs in the mode the env names (DATABASE_URL + NATS_URL → Postgres + JetStream; neither →
// embedded PGlite in memory).
//   bun bench/webhooks.ts [--bots 100] [--chats 5] [--per-chat 10] [--live 0 (backlog phase only)]
import { startWebhookWorker } from "../src/workers/webhook.ts";
import { startBenchServer } from "./server.ts";
import { machineNatsServerPid, numberArg, percentile, processCpuMs } from "./stats.ts";

const BOTS = numberArg("bots", 100);
const CHATS = numberArg("chats", 5);
const PER_CHAT = numberArg("per-chat", 10);
const LIVE = numberArg("live", 1) !== 0;
/** Requests the bench itself keeps in flight while ingesting; the worker has its own limits. */
const INGEST_CONCURRENCY = 20;

// Over real HTTP, as clients would: each request is its own turn of the event loop.
const { config, db, server, request } = await startBenchServer({ ALLOW_PRIVATE_WEBHOOKS: "1" });
const { platform } = server;
const call = async (method: string, path: string, body?: unknown, token?: string) => {
  const parsed = await request(method, path, body, token);
  if (!parsed.ok) throw new Error(`${method} ${path}: ${JSON.stringify(parsed)}`);
  return parsed.result;
};

// The receiver: records first arrivals per bot and chat, counts repeats and order breaks.
const sentAt = new Map<string, number>();
const lastSeen = new Map<string, number>();
const seen = new Set<string>();
let arrived = 0;
let repeats = 0;
let orderBreaks = 0;
const latencies: number[] = [];
const receiver = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  async fetch(request) {
    const bot = new URL(request.url).pathname.slice(1);
    const update = (await request.json()) as any;
    const key = `${bot} ${update.update_id}`;
    if (seen.has(key)) {
      repeats++;
      return new Response("ok");
    }
    seen.add(key);
    arrived++;
    const chat = `${bot} ${update.message.chat.id}`;
    if ((lastSeen.get(chat) ?? 0) > update.update_id) orderBreaks++;
    lastSeen.set(chat, update.update_id);
    const sent = sentAt.get(`${bot} ${update.message.text}`);
    if (sent !== undefined) latencies.push(performance.now() - sent);
    return new Response("ok");
  },
});
const receiverUrl = `http://127.0.0.1:${receiver.port}`;

const { token } = await call("POST", "/api/auth/register", { email: `bench-${Date.now()}@example.com`, password: "secret123" });
const bots: Array<{ id: string; token: string }> = [];
for (let i = 0; i < BOTS; i++) {
  const bot = await call("POST", "/api/bots", { name: `Fanout ${i}` }, token);
  await call("POST", `/api/bots/${bot.id}/set-webhook`, { url: `${receiverUrl}/${bot.id}` }, bot.token);
  bots.push(bot);
}

/**
 * The machine's nats-server: its CPU per update shows what the worker's reads, confirms and
 * purges ask of the server (a third of fan-out went there unseen in round 35,
 * docs/decisions.md round 40). Other tenants of that server count too.
 */
const natsPid = config.mode === "production" ? machineNatsServerPid() : undefined;

/** Counters read before and after a phase; pg is the CPU of the backends connected to the bench's database. */
async function costs() {
  const backends = config.mode === "production"
    ? await db.query<{ pid: number }>(`select pid from pg_stat_activity where datname = current_database()`) : [];
  const [commits] = await db.query<{ n: number }>(`select xact_commit::int as n from pg_stat_database where datname = current_database()`);
  const nats = platform.nats?.stats();
  return {
    bun: processCpuMs(process.pid), pg: backends.reduce((sum, b) => sum + processCpuMs(b.pid), 0), nats: processCpuMs(natsPid), statements, commits: commits?.n ?? 0,
    natsOut: nats?.outMsgs ?? 0, natsIn: nats?.inMsgs ?? 0,
  };
}

/** One message per (bot, chat) per round, rounds in order, so update order per chat is the send order. */
async function ingest(round: number, timed: boolean): Promise<void> {
  const jobs = bots.flatMap((bot) => Array.from({ length: CHATS }, (_, c) => ({ bot, chat: `chat-${c}` })));
  for (let i = 0; i < jobs.length; i += INGEST_CONCURRENCY) {
    await Promise.all(jobs.slice(i, i + INGEST_CONCURRENCY).map(async ({ bot, chat }) => {
      const text = `${chat} r${round}`;
      if (timed) sentAt.set(`${bot.id} ${text}`, performance.now());
      await call("POST", "/api/messages", { bot_id: bot.id, chat_id: chat, text, channel: "web" });
    }));
  }
}

async function waitFor(total: number): Promise<void> {
  const deadline = Date.now() + 600_000;
  while (arrived < total) {
    if (Date.now() > deadline) throw new Error(`only ${arrived}/${total} delivered`);
    await Bun.sleep(5);
  }
}

const perPhase = BOTS * CHATS * PER_CHAT;
console.log(`mode ${config.mode}: ${BOTS} bots × ${CHATS} chats × ${PER_CHAT} updates = ${perPhase} updates per phase`);

// Baseline: the same number of bare POSTs to the receiver, as many in flight as the worker may have.
const bare = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("ok") });
const baselineStart = performance.now();
const lanes = Math.min(perPhase, BOTS * CHATS);
await Promise.all(Array.from({ length: lanes }, async (_, lane) => {
  for (let i = lane; i < perPhase; i += lanes) {
    await fetch(`http://127.0.0.1:${bare.port}/`, { method: "POST", body: `{"update_id":${i}}` }).then((r) => r.text());
  }
}));
const baselineRate = perPhase / ((performance.now() - baselineStart) / 1000);
bare.stop(true);

// Phase 1: backlog.
const ingestStart = performance.now();
for (let round = 0; round < PER_CHAT; round++) await ingest(round, false);
const ingestSeconds = (performance.now() - ingestStart) / 1000;
// What the backlog's delivery costs per update: CPU of this process (the worker, and the
// receiver beside it) and of the database's backends, statements sent, NATS messages both ways.
let statements = 0;
const countQuery = <F extends (...args: any[]) => any>(f: F) => ((...args: any[]) => (statements++, f(...args))) as F;
db.query = countQuery(db.query.bind(db));
db.transaction = countQuery(db.transaction.bind(db));
db.transactionCommitBehind = countQuery(db.transactionCommitBehind.bind(db));
const before = await costs();
const deliverStart = performance.now();
// Only this run's bots: an earlier run's bots in the same database (their webhooks still
// set, their receivers gone) would each cost the worker a lease, a start and failing requests.
const ours = new Set(bots.map((b) => b.id));
const worker = await startWebhookWorker(server.services, { accept: (id) => ours.has(id) });
// The first tenth includes each actor's start (lease, settings, first read of its log).
await waitFor(perPhase / 10);
const firstTenthMs = performance.now() - deliverStart;
await waitFor(perPhase);
const backlogMs = performance.now() - deliverStart;
const backlogRate = perPhase / (backlogMs / 1000);
const steadyRate = (perPhase * 0.9) / ((backlogMs - firstTenthMs) / 1000);
const after = await costs();

// Phase 2: live traffic, ingest and delivery together.
const liveStart = performance.now();
if (LIVE) for (let round = PER_CHAT; round < 2 * PER_CHAT; round++) await ingest(round, true);
const phases = LIVE ? 2 : 1;
await waitFor(phases * perPhase);
const liveRate = perPhase / ((performance.now() - liveStart) / 1000);
latencies.sort((a, b) => a - b);

console.log(`baseline: bare POSTs to a local receiver, ${lanes} in flight   ${baselineRate.toFixed(0).padStart(7)} req/s`);
console.log(`ingest (POST /api/messages, ${INGEST_CONCURRENCY} at a time)            ${(perPhase / ingestSeconds).toFixed(0).padStart(7)} msg/s`);
console.log(`backlog delivery (worker alone), overall           ${backlogRate.toFixed(0).padStart(7)} updates/s  (×${(backlogRate / baselineRate).toFixed(2)} baseline; first 10 % took ${firstTenthMs.toFixed(0)} ms)`);
console.log(`backlog delivery, after the first 10 %            ${steadyRate.toFixed(0).padStart(7)} updates/s  (×${(steadyRate / baselineRate).toFixed(2)} baseline)`);
const per = (k: keyof typeof before) => ((after[k] - before[k]) / perPhase).toFixed(3);
console.log(`backlog cost per update: CPU ms bun ${per("bun")} (worker + receiver) pg ${per("pg")}${natsPid ? ` nats-server ${per("nats")}` : ""}; statements ${per("statements")}, commits ${per("commits")}, NATS msgs out ${per("natsOut")} in ${per("natsIn")}`);
if (LIVE) console.log(`live delivery (ingest + delivery together)        ${liveRate.toFixed(0).padStart(7)} updates/s`);
if (LIVE) console.log(`live latency POST → receiver                      p50 ${percentile(latencies, 50).toFixed(1)} ms  p95 ${percentile(latencies, 95).toFixed(1)} ms  p99 ${percentile(latencies, 99).toFixed(1)} ms`);
console.log(`per-chat order breaks ${orderBreaks}, repeats ${repeats}, delivered ${arrived}/${phases * perPhase}`);

await worker.stop();
const outcomes = await db.query<{ outcome: string; n: number }>(
  `select coalesce(error, status_code::text) as outcome, count(*)::int as n from delivery_attempts group by 1 order by 2 desc limit 5`);
console.log(`attempts logged: ${outcomes.map((o) => `${o.outcome} ×${o.n}`).join(", ")}`);
receiver.stop(true);
await server.stop();
await db.close();
if (orderBreaks > 0 || arrived !== phases * perPhase) process.exit(1);
