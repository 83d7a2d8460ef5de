// Ingest throughput as an outsider measures it: Debian's wrk (a cheap C load generator, Lua
// script bench/ingest.lua) POSTs /api/messages to the product as deployed (real processes,
// real HTTP) and to a naive server (bench/naive-ingest-server.ts: one transaction per request)
// in the same run, alternating, so both see the same machine. Printed for both: msgs/s,
// p50/p99, and CPU ms per accepted message per process (from /proc/<pid>/stat before and
// after each bounded run): bun, the PostgreSQL backends of its own database, nats-server; the
// share of the machine's cores left idle (a side that leaves some is bound by its latency, not
// by CPU) and the bun main thread's own CPU and busy share (near 100 %, that thread is the bound);
// in production commits and WAL bytes per message, HOT updates, autovacuum/autoanalyze runs.
// CPU per message stays meaningful on a busy machine where msgs/s does not.
//   bun bench/ingest.ts [embedded|production|both]
// Production needs DATABASE_URL (only the server is used: the bench creates and drops its
// own databases) and starts its own nats-server (JetStream, temp dir) so its CPU is ours alone.
// Env: BENCH_SECONDS (15), BENCH_CONNECTIONS (64), BENCH_BOTS (10), BENCH_CHATS (100000),
//      BENCH_RUNS (1), BENCH_MAX_REQUESTS (200000 per run), BENCH_LOG_LEVEL (info), BENCH_KEEP_LOGS, BENCH_PROFILE=<dir> (bun --cpu-prof-md), BENCH_WAL_BY_RELATION=1 (production: each side's WAL per message by relation, pg_walinspect),
//      BENCH_GC=1 (each run's collections per 1,000 messages and pauses per second, from JSC's log),
//      BENCH_SCENARIOS (spread,hot), BENCH_PRODUCT_SQL (what-if: SQL run on the product's database after
//      its migrations, e.g. "drop index x", to price an index or a setting before building the change),
//      BENCH_PRODUCT_ENV ("NAME=value …" for the product's process alone),
//      BENCH_CANDIDATE_DIR (production: another checkout, a git worktree with its own node_modules,
//      started beside the product with its own database and run in turn with it and the naive
//      server; printed against the product run by run, so a change is priced against the machine's
//      drift of the same minutes, which moves either side's figures by a fifth between invocations),
//      BENCH_CANDIDATE_SQL and BENCH_CANDIDATE_ENV (as the product's, for the candidate alone; with
//      BENCH_CANDIDATE_DIR=. a what-if is priced against the unchanged product in the same minutes).
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import postgres from "postgres";
import { procfileEntry, type ProcfileEntry } from "./procfile.ts";
import { cpuTotal, describe, median, rate, WRK, WRK_THREADS, wrkRun, type RunResult, type Target, type WrkLoad } from "./ingest-runs.ts";

const envNumber = (name: string, fallback: number) => {
  const value = Number(process.env[name] || fallback);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number`);
  return value;
};
/** Long enough for batches, the relay and the pool to reach their steady state. */
const SECONDS = envNumber("BENCH_SECONDS", 15);
/** The load: 64 keep-alive connections, more than the pool, as a busy site would send. */
const CONNECTIONS = envNumber("BENCH_CONNECTIONS", 64);
/** Several bots, so per-bot locking is spread the way a real tenant mix spreads it. */
const BOTS = envNumber("BENCH_BOTS", 10);
/** Chats drawn among this many: nearly every message opens a new conversation, the costly path. */
const CHATS = envNumber("BENCH_CHATS", 100_000);
/** Alternating product/naive runs per scenario; the issue asks for medians of 3. */
const RUNS = envNumber("BENCH_RUNS", 1);
/** Bounds a run in count as well as time (each wrk thread stops after its share). */
const MAX_REQUESTS = envNumber("BENCH_MAX_REQUESTS", 200_000);
const LOAD: WrkLoad = { connections: CONNECTIONS, chats: CHATS, maxRequests: MAX_REQUESTS };
/** Unmeasured load first: JIT, pool connections and first-touch allocations are not the steady state. */
const WARMUP_SECONDS = 2;
/** Idle RSS is read after this pause, so start-up garbage has had a chance to be collected. */
const IDLE_SETTLE_MS = 2_000;
/** PGlite start-up plus migrations on a busy 2-core machine take several seconds. */
const STARTUP_TIMEOUT_MS = 60_000;
/** SIGTERM drains in-flight requests; after this the process is killed outright. */
const STOP_GRACE_MS = 10_000;
/** Matches the product's rule (src/config.ts): a JWT secret has at least 32 characters. */
const JWT_SECRET = "bench-ingest-secret-bench-ingest-secret!";
const BUN = process.execPath;
/** BENCH_GC=1: each run's collections and pauses (JSC's log), for the product and the candidate. */
const GC = Boolean(process.env.BENCH_GC);
const NATS_SERVER = "/usr/sbin/nats-server";
const ROOT = join(import.meta.dir, "..");

type Mode = "embedded" | "production";
const arg = process.argv.slice(2).find((a) => !a.startsWith("-"));
if (arg && !["embedded", "production", "both"].includes(arg)) throw new Error(`unknown mode ${arg}: embedded, production or both`);
const modes: Mode[] = arg === "embedded" || arg === "production" ? [arg] : arg === "both" || (!arg && process.env.DATABASE_URL) ? ["embedded", "production"] : ["embedded"];
if (modes.includes("production") && !process.env.DATABASE_URL) throw new Error("production mode needs DATABASE_URL");
if (!(await Bun.file(WRK).exists())) throw new Error(`${WRK} is missing: apt-get install -y wrk`);

// Everything started is undone here, newest first, whatever way the bench ends.
const cleanups: Array<() => Promise<void> | void> = [];
async function cleanup(): Promise<void> {
  for (let undo = cleanups.pop(); undo; undo = cleanups.pop()) {
    try {
      await undo();
    } catch (err) {
      console.error(`cleanup: ${(err as Error).message}`);
    }
  }
}
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => void cleanup().then(() => process.exit(130)));
const OVERALL_TIMEOUT_MS = modes.length * ((process.env.BENCH_CANDIDATE_DIR ? 6 : 4) * RUNS * (SECONDS + WARMUP_SECONDS + 15) * 1000 + 4 * STARTUP_TIMEOUT_MS);
const watchdog = setTimeout(() => {
  console.error(`ingest bench: gave up after ${OVERALL_TIMEOUT_MS / 1000} s`);
  void cleanup().then(() => process.exit(1));
}, OVERALL_TIMEOUT_MS);

async function freePort(): Promise<number> {
  const probe = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const port = probe.port!;
  await probe.stop(true);
  return port;
}

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? NaN) / 1024;
}

const tail = (file: string) => {
  try {
    return readFileSync(file, "utf8").split("\n").slice(-20).join("\n");
  } catch {
    return "(no log)";
  }
};

/** `log`: the file its stdout and stderr go to. */
type Service = { url: string; pid: number; log: string; stop: () => Promise<void> };

/** Spawns a process with exactly `env`; waits for `ready` (default: GET /readyz answers). */
async function start(name: string, cmd: string[], env: Record<string, string>, logDir: string, port: number, ready?: () => Promise<boolean>, cwd = ROOT): Promise<Service> {
  const log = join(logDir, `${name}.log`);
  // One descriptor opened for appending, for both streams: two opens of the file each wrote from
  // their own offset, and the request log overwrote the collector's lines (BENCH_GC).
  const fd = openSync(log, "a");
  const proc = Bun.spawn(cmd, {
    cwd,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp", ...env, PORT: String(port), HOST: "127.0.0.1" },
    stdout: fd,
    stderr: fd,
  });
  closeSync(fd);
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    proc.kill("SIGTERM");
    const timer = setTimeout(() => proc.kill("SIGKILL"), STOP_GRACE_MS);
    await proc.exited;
    clearTimeout(timer);
  };
  cleanups.push(stop);
  const url = `http://127.0.0.1:${port}`;
  const isReady = ready ?? (() => fetch(`${url}/readyz`, { signal: AbortSignal.timeout(1_000) }).then((r) => r.ok, () => false));
  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (proc.exitCode !== null) throw new Error(`${name} exited with ${proc.exitCode} during start-up:\n${tail(log)}`);
    if (await isReady()) return { url, pid: proc.pid, log, stop };
    await Bun.sleep(100);
  }
  throw new Error(`${name} not ready within ${STARTUP_TIMEOUT_MS / 1000} s:\n${tail(log)}`);
}

/** `launch`: bun's arguments and the environment the process is started with (the Procfile's, for the product in production). */
async function startBun(name: string, launch: ProcfileEntry, env: Record<string, string>, logDir: string, cwd = ROOT): Promise<Service> {
  // BENCH_PROFILE=<dir>: the product writes a CPU profile there (bun --cpu-prof-md) when it stops.
  const flags = name === "product" && process.env.BENCH_PROFILE ? [process.env.BENCH_PROFILE_FORMAT === "json" ? "--cpu-prof" : "--cpu-prof-md", `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [];
  const [bun, ...args] = launch.argv;
  if (bun !== BUN) throw new Error(`${name} is not started by bun: ${launch.argv.join(" ")}`);
  return start(name, [BUN, ...flags, ...args], { ...launch.env, ...env }, logDir, await freePort(), undefined, cwd);
}

async function runOnce(entry: string, env: Record<string, string>, cwd = ROOT): Promise<void> {
  const proc = Bun.spawn([BUN, join(cwd, entry)], { cwd, env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...env }, stdout: "pipe", stderr: "pipe" });
  const timer = setTimeout(() => proc.kill("SIGKILL"), STARTUP_TIMEOUT_MS);
  const code = await proc.exited;
  clearTimeout(timer);
  if (code !== 0) throw new Error(`${entry} exited with ${code}:\n${await new Response(proc.stderr).text()}`);
}

async function api(base: string, path: string, body: unknown, token?: string): Promise<any> {
  const res = await fetch(`${base}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  const parsed = (await res.json()) as any;
  if (!parsed.ok) throw new Error(`POST ${path}: ${res.status} ${JSON.stringify(parsed)}`);
  return parsed.result;
}


async function createDatabase(admin: URL, name: string): Promise<string> {
  const adminSql = () => postgres(admin.href, { max: 1, onnotice: () => {}, connect_timeout: 5 });
  const sql = adminSql();
  await sql.unsafe(`create database ${name}`).finally(() => sql.end());
  cleanups.push(async () => {
    const dropper = adminSql();
    await dropper.unsafe(`drop database if exists ${name} with (force)`).finally(() => dropper.end());
  });
  const url = new URL(admin.href);
  url.pathname = `/${name}`;
  return url.href;
}

async function startNats(work: string): Promise<{ url: string; pid: number }> {
  const port = await freePort();
  const ready = () => Bun.connect({ hostname: "127.0.0.1", port, socket: { data() {} } }).then((s) => (s.end(), true), () => false);
  const service = await start("nats", [NATS_SERVER, "-a", "127.0.0.1", "-p", String(port), "-js", "-sd", join(work, "nats")], {}, work, port, ready);
  return { url: `nats://127.0.0.1:${port}`, pid: service.pid };
}

/**
 * A product's own database, migrated by the release of the checkout in `dir`; `env` gets its
 * DATABASE_URL and `nats`. `whatIf`: SQL run after the migrations (BENCH_PRODUCT_SQL, BENCH_CANDIDATE_SQL).
 * Returns a connection for the side's counters and backends.
 */
async function releasedDatabase(admin: URL, name: string, env: Record<string, string>, nats: Record<string, string>, dir: string, whatIf?: string): Promise<postgres.Sql> {
  const url = await createDatabase(admin, name);
  Object.assign(env, { DATABASE_URL: url, ...nats });
  await runOnce("src/release.ts", env, dir);
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  cleanups.push(() => sql.end());
  if (whatIf) await sql.unsafe(whatIf);
  return sql;
}

/** Adds "NAME=value …" to `env`. */
function addEnv(env: Record<string, string>, pairs = ""): void {
  for (const pair of pairs.split(" ").filter((p) => p.includes("="))) env[pair.slice(0, pair.indexOf("="))] = pair.slice(pair.indexOf("=") + 1);
}

async function benchMode(mode: Mode): Promise<void> {
  const stamp = `${Date.now()}_${process.pid}`;
  const work = mkdtempSync(join(tmpdir(), `bench-ingest-${mode}-`));
  // BENCH_KEEP_LOGS=1 keeps the processes' logs (request lines carry each request's ms) for a look afterwards.
  if (process.env.BENCH_KEEP_LOGS) console.log(`logs kept in ${work}`);
  else cleanups.push(() => rmSync(work, { recursive: true, force: true }));
  // Everything on, as deployed: request logs at the default level (BENCH_LOG_LEVEL to change), metrics, validation.
  const productEnv: Record<string, string> = { RATE_LIMITS: "off", LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? "info", JWT_SECRET };
  const naiveEnv: Record<string, string> = {};
  let productSql: postgres.Sql | undefined;
  let naiveSql: postgres.Sql | undefined;
  let natsPid: number | undefined;
  const candidateDir = mode === "production" && process.env.BENCH_CANDIDATE_DIR ? resolve(process.env.BENCH_CANDIDATE_DIR) : undefined;
  const candidateEnv: Record<string, string> = { ...productEnv };
  let candidateSql: postgres.Sql | undefined;

  if (mode === "production") {
    const admin = new URL(process.env.DATABASE_URL!);
    const nats = await startNats(work);
    natsPid = nats.pid;
    productSql = await releasedDatabase(admin, `bench_ingest_${stamp}`, productEnv, { NATS_URL: nats.url, NATS_PREFIX: `bench${process.pid}` }, ROOT, process.env.BENCH_PRODUCT_SQL);
    if (candidateDir) {
      const env = { NATS_URL: nats.url, NATS_PREFIX: `benchc${process.pid}` };
      candidateSql = await releasedDatabase(admin, `bench_candidate_${stamp}`, candidateEnv, env, candidateDir, process.env.BENCH_CANDIDATE_SQL);
    }
    const naiveDb = await createDatabase(admin, `bench_naive_${stamp}`);
    naiveEnv.NAIVE_DATABASE_URL = naiveDb;
    naiveSql = postgres(naiveDb, { max: 1, onnotice: () => {} });
    cleanups.push(() => naiveSql!.end());
  } else {
    productEnv.DATA_DIR = join(work, "product");
    naiveEnv.NAIVE_PGLITE_DIR = join(work, "naive-pgdata");
  }

  // Both stay up for the whole mode: runs alternate, so both see the same minutes of the machine.
  // The product as deployed: the Procfile's web process in production, `npm start`'s command embedded.
  const productLaunch = mode === "production" ? procfileEntry("web") : { argv: [BUN, "src/main.ts"], env: {} };
  // BENCH_PRODUCT_ENV="NAME=value …": extra environment for the product alone (BUN_JSC_logGC=1 logs its collections).
  // BENCH_GC=1: the product (and candidate) log JSC's collections; each run's are counted from there.
  if (GC) productEnv.BUN_JSC_logGC = candidateEnv.BUN_JSC_logGC = "1";
  addEnv(productEnv, process.env.BENCH_PRODUCT_ENV);
  addEnv(candidateEnv, process.env.BENCH_CANDIDATE_ENV);
  const productService = await startBun("product", productLaunch, productEnv, work);
  const candidateService = candidateDir ? await startBun("candidate", productLaunch, candidateEnv, work, candidateDir) : undefined;
  const naiveService = await startBun("naive", { argv: [BUN, "bench/naive-ingest-server.ts"], env: {} }, naiveEnv, work);
  await Bun.sleep(IDLE_SETTLE_MS);
  const idle = { product: rssMb(productService.pid), naive: rssMb(naiveService.pid) };
  const botsOf = async (service: Service) => {
    const { token } = await api(service.url, "/api/auth/register", { email: `bench-ingest-${stamp}@example.com`, password: "secret123" });
    const ids: string[] = [];
    for (let i = 0; i < BOTS; i++) ids.push((await api(service.url, "/api/bots", { name: `Ingest ${i}` }, token)).id);
    return ids;
  };
  const gcLog = (service: Service) => (GC ? service.log : undefined);
  const product: Target = { name: "product", service: productService, botIds: await botsOf(productService), sql: productSql, natsPid, gcLog: gcLog(productService) };
  const candidate: Target | undefined = candidateService && { name: "candidate", service: candidateService, botIds: await botsOf(candidateService), sql: candidateSql, natsPid, gcLog: gcLog(candidateService) };
  const naive: Target = { name: "naive", service: naiveService, botIds: Array.from({ length: BOTS }, () => crypto.randomUUID()), sql: naiveSql };
  const targets = candidate ? [product, candidate, naive] : [product, naive];

  console.log(`\nmode ${mode}: wrk ${WRK_THREADS} threads, ${CONNECTIONS} connections, ${BOTS} bots, chats among ${CHATS}, ${SECONDS} s (≤ ${MAX_REQUESTS} requests) per run, ${RUNS} run(s) each, alternating, each round starting with the next side`);
  if (candidateDir) console.log(`candidate: ${candidateDir}`);
  for (const t of targets) await wrkRun(t, LOAD, t.botIds, WARMUP_SECONDS, `${t.name}-warm-${stamp}`);
  const scenarios = [["spread", (t: Target) => t.botIds], ["hot bot", (t: Target) => [t.botIds[0]!]]] as const;
  const wanted = (process.env.BENCH_SCENARIOS ?? "spread,hot").split(",");
  for (const [scenario, pick] of scenarios.filter(([name]) => wanted.includes(name.split(" ")[0]!))) {
    const results: Record<string, RunResult[]> = Object.fromEntries(targets.map((t) => [t.name, []]));
    for (let run = 0; run < RUNS; run++) {
      // Each round starts with the next side: a checkpoint comes every so many MB of WAL, and when
      // that matched one round's length it fell in the same side's runs every time (round 32).
      const order = targets.map((_, i) => targets[(i + run) % targets.length]!);
      for (const t of order) results[t.name]!.push(await wrkRun(t, LOAD, pick(t), SECONDS, `${t.name}-${scenario.replace(" ", "")}-${run}-${stamp}`));
    }
    for (const t of targets) console.log(describe(`${t.name}, ${scenario}`, results[t.name]!));
    if (candidate) {
      const pairs = (f: (r: RunResult) => number) => median(results.candidate!.map((c, i) => f(c) / f(results.product![i]!)));
      console.log(`${"".padEnd(28)} candidate/product ×${pairs(rate).toFixed(3)} msgs/s, CPU per message ×${pairs(cpuTotal).toFixed(3)} (bun ×${pairs((r) => r.cpu.bun).toFixed(3)}, pg ×${pairs((r) => r.cpu.postgres).toFixed(3)}, nats ×${pairs((r) => r.cpu.nats).toFixed(3)}; medians of the run pairs' ratios)`);
    }
    // Each run's CPU beside the naive run of the same round: the machine's drift between invocations
    // (a fifth here) cancels in the pair, the differences a change makes do not.
    const cpuPairs = results.product!.map((p, i) => cpuTotal(p) / cpuTotal(results.naive![i]!));
    console.log(`${"".padEnd(28)} product/naive ×${(median(results.product!.map(rate)) / median(results.naive!.map(rate))).toFixed(2)} msgs/s, CPU per message ×${median(cpuPairs).toFixed(2)} (median of the run pairs' ratios)`);
  }
  console.log(`RSS idle after start-up: product ${idle.product.toFixed(0)} MB, naive ${idle.naive.toFixed(0)} MB; after the load: product ${rssMb(productService.pid).toFixed(0)} MB`);
}

let failed = false;
try {
  console.log(`ingest bench on ${navigator.hardwareConcurrency} cores (wrk shares them with the servers; msgs/s is noisy on a busy machine, CPU ms/msg much less so)`);
  for (const mode of modes) await benchMode(mode).finally(cleanup);
} catch (err) {
  failed = true;
  console.error(`ingest bench failed: ${(err as Error).stack ?? err}`);
} finally {
  await cleanup();
  clearTimeout(watchdog);
}
process.exit(failed ? 1 : 0);
