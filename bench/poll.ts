// Reading updates: a bot that polls get-updates?timeout=0&limit=100 while 100 updates are
// pending (it has not confirmed them: each answer is the same 100), driven by Debian's wrk.
// Printed beside a baseline from the same run: a bare Bun server answering those very bytes
// from memory (what any design must pay to send them). CPU ms per poll is this process's
// (the server's; wrk runs apart) plus, in production, the nats-server the log lives in.
// Runs in the mode the env names (DATABASE_URL + NATS_URL → Postgres + JetStream; neither →
// embedded PGlite in memory).
//   bun bench/poll.ts [--seconds 5] [--connections 4]
import { startBenchServer } from "./server.ts";
import { machineNatsServerPid, numberArg, processCpuMs } from "./stats.ts";

/** Long enough for the JIT to settle, short enough to repeat in pairs on a noisy machine. */
const SECONDS = numberArg("seconds", 5);
/** A few bots' worth of polls at once; one wrk thread, so wrk leaves the second core to the server. */
const CONNECTIONS = numberArg("connections", 4);
/** Telegram's largest page: the answer a busy bot reads. */
const PENDING = 100;

const { config, db, server, request } = await startBenchServer();
const post = (path: string, body: unknown, token?: string) => request("POST", path, body, token);
const { token } = (await post("/api/auth/register", { email: `bench-poll-${Date.now()}@example.com`, password: "secret123" })).result;
const bot = (await post("/api/bots", { name: "Poller" }, token)).result;
for (let i = 0; i < PENDING; i++) {
  await post("/api/messages", { bot_id: bot.id, chat_id: `c${i % 10}`, text: `message ${i} with a few words in it`, user: { id: `u${i % 10}`, first_name: "Ada" } });
}
const pollUrl = `${server.url}/api/bots/${bot.id}/get-updates?timeout=0&limit=${PENDING}`;
const answer = await (await fetch(pollUrl, { headers: { authorization: `Bearer ${bot.token}` } })).text();
if ((JSON.parse(answer) as { result: unknown[] }).result.length !== PENDING) throw new Error("the bot does not have 100 pending updates");

const bare = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response(answer, { headers: { "content-type": "application/json" } }) });

const natsPid = config.mode === "production" ? machineNatsServerPid() : undefined;

async function wrk(url: string, headers: string[]): Promise<{ perSecond: number; p50: number; bunMs: number; natsMs: number; requests: number }> {
  const natsBefore = processCpuMs(natsPid);
  const before = process.cpuUsage();
  const proc = Bun.spawn(["/usr/bin/wrk", "-t1", `-c${CONNECTIONS}`, `-d${SECONDS}s`, "--latency", ...headers.flatMap((h) => ["-H", h]), url], { stdout: "pipe", stderr: "pipe" });
  const out = await new Response(proc.stdout).text();
  await proc.exited;
  const used = process.cpuUsage(before);
  const requests = Number(/(\d+) requests in/.exec(out)?.[1]);
  const latency = /50%\s+([\d.]+)(us|ms|s)/.exec(out);
  if (!requests || !latency) throw new Error(`wrk printed no result:\n${out}`);
  const p50 = Number(latency[1]) * { us: 0.001, ms: 1, s: 1000 }[latency[2] as "us" | "ms" | "s"];
  if (/Non-2xx/.test(out)) throw new Error(`wrk saw errors:\n${out}`);
  return { perSecond: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]), p50, bunMs: (used.user + used.system) / 1000 / requests, natsMs: (processCpuMs(natsPid) - natsBefore) / requests, requests };
}

const auth = [`Authorization: Bearer ${bot.token}`];
await wrk(pollUrl, auth); // warm-up: the JIT and the log's index, not measured
const baseline = await wrk(`http://127.0.0.1:${bare.port}/`, []);
const product = await wrk(pollUrl, auth);
const line = (name: string, r: Awaited<ReturnType<typeof wrk>>) =>
  `${name.padEnd(34)} ${r.perSecond.toFixed(0).padStart(6)} polls/s  p50 ${r.p50.toFixed(2)} ms  CPU ms/poll bun ${r.bunMs.toFixed(3)}${natsPid ? ` nats ${r.natsMs.toFixed(3)}` : ""}`;
console.log(`mode: ${config.mode}, ${PENDING} pending updates per answer (${(answer.length / 1024).toFixed(1)} KiB), wrk 1 thread, ${CONNECTIONS} connections, ${SECONDS} s`);
console.log(line("baseline: the same bytes from memory", baseline));
console.log(line("get-updates", product) + `  (×${(product.bunMs / baseline.bunMs).toFixed(1)} baseline CPU)`);
bare.stop(true);
await server.stop();
await db.close();
