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
//      BENCH_RUNS (1), BENCH_MAX_REQUESTS (200000 per run), BENCH_LOG_LEVEL (info), BENCH_KEEP_LOGS, BENCH_PROFILE=<dir> (bun --cpu-prof-md),
//      BENCH_SCENARIOS (spread,hot), BENCH_PRODUCT_SQL (what-if: SQL run on the product's database after
//      its migrations, e.g. "drop index x", to price an index or a setting before building the change),
//      BENCH_PRODUCT_ENV ("NAME=value …" for the product's process alone),
//      BENCH_CANDIDATE_DIR (production: another checkout, a git worktree with its own node_modules,
//      started beside the product with its own database and run in turn with it and the naive
//      server; printed against the product run by run, so a change is priced against the machine's
//      drift of the same minutes, which moves either side's figures by a fifth between invocations),
//      BENCH_CANDIDATE_SQL and BENCH_CANDIDATE_ENV (as the product's, for the candidate alone; with
//      BENCH_CANDIDATE_DIR=. a what-if is priced against the unchanged product in the same minutes).
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import postgres from "postgres";
import { procfileEntry, type ProcfileEntry } from "./procfile.ts";
import { machineCpuTicks, mainThreadCpuMs, processCpuMs } from "./stats.ts";

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
/** Two wrk threads: the machine has two cores and wrk must not take the server's CPU. */
const WRK_THREADS = 2;
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
const WRK = "/usr/bin/wrk";
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

type Service = { url: string; pid: number; stop: () => Promise<void> };

/** Spawns a process with exactly `env`; waits for `ready` (default: GET /readyz answers). */
async function start(name: string, cmd: string[], env: Record<string, string>, logDir: string, port: number, ready?: () => Promise<boolean>, cwd = ROOT): Promise<Service> {
  const log = join(logDir, `${name}.log`);
  const proc = Bun.spawn(cmd, {
    cwd,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp", ...env, PORT: String(port), HOST: "127.0.0.1" },
    stdout: Bun.file(log),
    stderr: Bun.file(log),
  });
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
    if (await isReady()) return { url, pid: proc.pid, stop };
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

/** What one side of a run is measured by: its server, where its database lives, its broker. */
interface Target {
  name: string;
  service: Service;
  botIds: string[];
  /** The side's own database (production): its backends' CPU and its table counters. */
  sql?: postgres.Sql;
  natsPid?: number;
}

/** `bunMain`: the bun process's main thread, part of `bun`. */
type Cpu = Record<"bun" | "bunMain" | "postgres" | "nats", number>;

/** Backend pids of the side's database; a backend that starts during the run counts from zero. */
async function backends(sql: postgres.Sql): Promise<number[]> {
  const rows = await sql<{ pid: number }[]>`select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`;
  return rows.map((r) => r.pid);
}

async function sampleCpu(t: Target): Promise<{ cpu: Cpu; pids: Map<number, number> }> {
  const pids = new Map<number, number>();
  for (const pid of t.sql ? await backends(t.sql) : []) pids.set(pid, processCpuMs(pid));
  return { cpu: { bun: processCpuMs(t.service.pid), bunMain: mainThreadCpuMs(t.service.pid), postgres: 0, nats: processCpuMs(t.natsPid) }, pids };
}

/**
 * `wal`: the cluster's WAL position in bytes. The sides run one after the other, so a run's
 * advance is its own writes (plus whatever else the server did meanwhile: nothing, in CI).
 */
type TableCounters = { upd: number; hot: number; ins: number; vacuums: number; analyzes: number };
type Counters = { commits: number; wal: number; tables: Map<string, TableCounters> };
/** A table's counters before the run when it had none yet (created during the run). */
const NO_COUNTS: TableCounters = { upd: 0, hot: 0, ins: 0, vacuums: 0, analyzes: 0 };
async function dbCounters(sql?: postgres.Sql): Promise<Counters | undefined> {
  if (!sql) return undefined;
  const [db] = await sql<{ commits: string; wal: string }[]>`
    select xact_commit::text as commits, (pg_current_wal_insert_lsn() - '0/0'::pg_lsn)::text as wal from pg_stat_database where datname = current_database()`;
  const rows = await sql<{ relname: string; upd: string; hot: string; ins: string; vacuums: string; analyzes: string }[]>`
    select relname, n_tup_upd::text as upd, n_tup_hot_upd::text as hot, n_tup_ins::text as ins,
      autovacuum_count::text as vacuums, autoanalyze_count::text as analyzes from pg_stat_user_tables`;
  return {
    commits: Number(db!.commits), wal: Number(db!.wal),
    tables: new Map(rows.map((r) => [r.relname, { upd: Number(r.upd), hot: Number(r.hot), ins: Number(r.ins), vacuums: Number(r.vacuums), analyzes: Number(r.analyzes) }])),
  };
}

interface RunResult {
  accepted: number;
  seconds: number;
  p50: number;
  p99: number;
  errors: string;
  cpu: Cpu;
  /**
   * Share of the machine's cores nobody used during the run (wrk included): a side that leaves
   * cores idle is bound by its own latency, not by CPU.
   */
  idle: number;
  /** Share of the run's wall time the bun process's main thread was on a core: near 1, it is the bottleneck. */
  mainBusy: number;
  commitsPerMsg?: number;
  walBytesPerMsg?: number;
  updates?: string;
  /**
   * Autovacuum and autoanalyze runs finished during the run, by table. Why: each takes a core for
   * a moment, on a 2-core machine a stall in the run's p99; this says whether one fell in the run.
   */
  maintenance?: string;
}

/** One bounded wrk run against a side; CPU and table counters read before and after. */
async function wrkRun(t: Target, bots: string[], seconds: number, tag: string): Promise<RunResult> {
  await t.sql?.unsafe("select pg_stat_clear_snapshot()");
  const before = await sampleCpu(t);
  const countersBefore = await dbCounters(t.sql);
  const machineBefore = machineCpuTicks();
  const proc = Bun.spawn([WRK, `-t${WRK_THREADS}`, `-c${CONNECTIONS}`, `-d${seconds}s`, "--timeout", "10s", "-s", join(import.meta.dir, "ingest.lua"), t.service.url], {
    env: { ...process.env, BENCH_BOT_IDS: bots.join(","), BENCH_CHATS: String(CHATS), BENCH_TAG: tag, BENCH_MAX_PER_THREAD: String(Math.ceil(MAX_REQUESTS / WRK_THREADS)) },
    stdout: "pipe", stderr: "pipe",
  });
  const [out, err] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  const machineAfter = machineCpuTicks();
  const line = out.split("\n").find((l) => l.startsWith("WRK "));
  if (!line) throw new Error(`wrk printed no result:\n${out}\n${err}`);
  const w = JSON.parse(line.slice(4)) as Record<string, number>;
  // Counters settle after the last commit; the stats collector flushes at transaction end.
  await Bun.sleep(200);
  const after = await sampleCpu(t);
  await t.sql?.unsafe("select pg_stat_clear_snapshot()");
  const countersAfter = await dbCounters(t.sql);
  const accepted = w.requests! - w.status_errors!;
  let postgresMs = 0;
  for (const [pid, ms] of after.pids) postgresMs += ms - (before.pids.get(pid) ?? 0);
  const per = (ms: number) => (accepted > 0 ? ms / accepted : NaN);
  const errors = ["status_errors", "connect", "read", "write", "timeout"].filter((k) => w[k]).map((k) => `${k}×${w[k]}`).join(" ") || "none";
  const result: RunResult = {
    accepted, seconds: w.duration_us! / 1e6, p50: w.p50_us! / 1000, p99: w.p99_us! / 1000, errors,
    cpu: { bun: per(after.cpu.bun - before.cpu.bun), bunMain: per(after.cpu.bunMain - before.cpu.bunMain), postgres: per(postgresMs), nats: per(after.cpu.nats - before.cpu.nats) },
    mainBusy: (after.cpu.bunMain - before.cpu.bunMain) / (w.duration_us! / 1000),
    idle: (machineAfter.idle - machineBefore.idle) / Math.max(1, machineAfter.total - machineBefore.total),
  };
  if (countersBefore && countersAfter) {
    result.commitsPerMsg = (countersAfter.commits - countersBefore.commits) / Math.max(1, accepted);
    result.walBytesPerMsg = (countersAfter.wal - countersBefore.wal) / Math.max(1, accepted);
    const moved = [...countersAfter.tables].map(([name, a]) => {
      const was = countersBefore.tables.get(name) ?? NO_COUNTS;
      return { name, upd: a.upd - was.upd, hot: a.hot - was.hot, vacuums: a.vacuums - was.vacuums, analyzes: a.analyzes - was.analyzes };
    });
    result.updates = moved.flatMap((t) => (t.upd > 0 ? [`${t.name} ${t.hot}/${t.upd} HOT`] : [])).join(", ");
    result.maintenance = moved.flatMap((t) => (t.vacuums || t.analyzes ? [`${t.name} ${t.vacuums}/${t.analyzes}`] : [])).join(", ");
  }
  return result;
}

const rate = (r: RunResult) => r.accepted / r.seconds;
const cpuTotal = (r: RunResult) => r.cpu.bun + r.cpu.postgres + r.cpu.nats;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
function describe(name: string, runs: RunResult[]): string {
  const r = runs.map(rate);
  const m = (f: (x: RunResult) => number) => median(runs.map(f));
  const cpu = `CPU ms/msg bun ${m((x) => x.cpu.bun).toFixed(3)} (main thread ${m((x) => x.cpu.bunMain).toFixed(3)}, busy ${(m((x) => x.mainBusy) * 100).toFixed(0)} %) pg ${m((x) => x.cpu.postgres).toFixed(3)} nats ${m((x) => x.cpu.nats).toFixed(3)} = ${m(cpuTotal).toFixed(3)}; cores idle ${(m((x) => x.idle) * 100).toFixed(0)} %`;
  const extra = runs[0]!.commitsPerMsg === undefined ? "" : `\n${"".padEnd(28)} commits/msg ${m((x) => x.commitsPerMsg!).toFixed(3)}; WAL B/msg ${m((x) => x.walBytesPerMsg!).toFixed(0)}; updates: ${runs.at(-1)!.updates || "none"}\n${"".padEnd(28)} autovacuum/autoanalyze runs: ${runs.at(-1)!.maintenance || "none"}`;
  return `${name.padEnd(28)} ${r.map((x) => x.toFixed(0)).join(" / ").padStart(18)} msgs/s (median ${median(r).toFixed(0)})  p50 ${m((x) => x.p50).toFixed(1)} ms  p99 ${m((x) => x.p99).toFixed(1)} ms  errors: ${runs.map((x) => x.errors).join("; ")}\n${"".padEnd(28)} ${cpu}${extra}`;
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
    const productDb = await createDatabase(admin, `bench_ingest_${stamp}`);
    const naiveDb = await createDatabase(admin, `bench_naive_${stamp}`);
    const nats = await startNats(work);
    natsPid = nats.pid;
    Object.assign(productEnv, { DATABASE_URL: productDb, NATS_URL: nats.url, NATS_PREFIX: `bench${process.pid}` });
    naiveEnv.NAIVE_DATABASE_URL = naiveDb;
    await runOnce("src/release.ts", productEnv);
    productSql = postgres(productDb, { max: 1, onnotice: () => {} });
    if (process.env.BENCH_PRODUCT_SQL) await productSql.unsafe(process.env.BENCH_PRODUCT_SQL);
    naiveSql = postgres(naiveDb, { max: 1, onnotice: () => {} });
    cleanups.push(() => productSql!.end(), () => naiveSql!.end());
    if (candidateDir) {
      const candidateDb = await createDatabase(admin, `bench_candidate_${stamp}`);
      Object.assign(candidateEnv, { DATABASE_URL: candidateDb, NATS_URL: nats.url, NATS_PREFIX: `benchc${process.pid}` });
      await runOnce("src/release.ts", candidateEnv, candidateDir);
      candidateSql = postgres(candidateDb, { max: 1, onnotice: () => {} });
      cleanups.push(() => candidateSql!.end());
      if (process.env.BENCH_CANDIDATE_SQL) await candidateSql.unsafe(process.env.BENCH_CANDIDATE_SQL);
    }
  } else {
    productEnv.DATA_DIR = join(work, "product");
    naiveEnv.NAIVE_PGLITE_DIR = join(work, "naive-pgdata");
  }

  // Both stay up for the whole mode: runs alternate, so both see the same minutes of the machine.
  // The product as deployed: the Procfile's web process in production, `npm start`'s command embedded.
  const productLaunch = mode === "production" ? procfileEntry("web") : { argv: [BUN, "src/main.ts"], env: {} };
  // BENCH_PRODUCT_ENV="NAME=value …": extra environment for the product alone (BUN_JSC_logGC=1 logs its collections).
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
  const product: Target = { name: "product", service: productService, botIds: await botsOf(productService), sql: productSql, natsPid };
  const candidate: Target | undefined = candidateService && { name: "candidate", service: candidateService, botIds: await botsOf(candidateService), sql: candidateSql, natsPid };
  const naive: Target = { name: "naive", service: naiveService, botIds: Array.from({ length: BOTS }, () => crypto.randomUUID()), sql: naiveSql };
  const targets = candidate ? [product, candidate, naive] : [product, naive];

  console.log(`\nmode ${mode}: wrk ${WRK_THREADS} threads, ${CONNECTIONS} connections, ${BOTS} bots, chats among ${CHATS}, ${SECONDS} s (≤ ${MAX_REQUESTS} requests) per run, ${RUNS} run(s) each, alternating`);
  if (candidateDir) console.log(`candidate: ${candidateDir}`);
  for (const t of targets) await wrkRun(t, t.botIds, WARMUP_SECONDS, `${t.name}-warm-${stamp}`);
  const scenarios = [["spread", (t: Target) => t.botIds], ["hot bot", (t: Target) => [t.botIds[0]!]]] as const;
  const wanted = (process.env.BENCH_SCENARIOS ?? "spread,hot").split(",");
  for (const [scenario, pick] of scenarios.filter(([name]) => wanted.includes(name.split(" ")[0]!))) {
    const results: Record<string, RunResult[]> = Object.fromEntries(targets.map((t) => [t.name, []]));
    for (let run = 0; run < RUNS; run++) {
      for (const t of targets) results[t.name]!.push(await wrkRun(t, pick(t), SECONDS, `${t.name}-${scenario.replace(" ", "")}-${run}-${stamp}`));
    }
    for (const t of targets) console.log(describe(`${t.name}, ${scenario}`, results[t.name]!));
    if (candidate) {
      const pairs = (f: (r: RunResult) => number) => median(results.candidate!.map((c, i) => f(c) / f(results.product![i]!)));
      console.log(`${"".padEnd(28)} candidate/product ×${pairs(rate).toFixed(3)} msgs/s, CPU per message ×${pairs(cpuTotal).toFixed(3)} (bun ×${pairs((r) => r.cpu.bun).toFixed(3)}, pg ×${pairs((r) => r.cpu.postgres).toFixed(3)}, nats ×${pairs((r) => r.cpu.nats).toFixed(3)}; medians of the run pairs' ratios)`);
    }
    // Each run's CPU beside the naive run right after it: the machine's drift between invocations
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
