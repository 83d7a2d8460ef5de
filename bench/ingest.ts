// Ingest throughput: accepted POST /api/messages per second under concurrent senders, for the
// product as deployed (real processes, real HTTP) next to a naive server measured in the same
// run with the same load generator, database server, driver and pool size
// (bench/naive-ingest-server.ts). Also the product's RSS when idle after start-up and after
// the load. Talks to the product only over HTTP and spawns its entry files by path, so it
// survives any reshuffle of src/.
//   bun bench/ingest.ts [embedded|production|both]
// Default: both when DATABASE_URL and NATS_URL are set (DATABASE_URL only names the server:
// the bench creates and drops its own database there), else embedded only.
// Env: BENCH_SECONDS (20), BENCH_SENDERS (64), BENCH_BOTS (10), BENCH_CHATS (100000).
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import { percentile } from "./stats.ts";

const envNumber = (name: string, fallback: number) => {
  const value = Number(process.env[name] || fallback);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number`);
  return value;
};
/** Long enough for the product's 5 s relay and pool churn to show up in the figure. */
const SECONDS = envNumber("BENCH_SECONDS", 20);
/** The load: many small clients, more than the pool, as a busy site would send. */
const SENDERS = envNumber("BENCH_SENDERS", 64);
/** Several bots, so per-bot locking is spread the way a real tenant mix spreads it. */
const BOTS = envNumber("BENCH_BOTS", 10);
/** Chats drawn among this many: nearly every message opens a new conversation, the costly path. */
const CHATS = envNumber("BENCH_CHATS", 100_000);
/** Unmeasured load first: JIT, pool connections and first-touch allocations are not the steady state. */
const WARMUP_SECONDS = 2;
/** Idle RSS is read after this pause, so start-up garbage has had a chance to be collected. */
const IDLE_SETTLE_MS = 2_000;
/** PGlite start-up plus migrations on a busy 2-core machine take several seconds. */
const STARTUP_TIMEOUT_MS = 60_000;
/** A request slower than this counts as an error ("timeout") instead of stalling the bench. */
const REQUEST_TIMEOUT_MS = 10_000;
/** SIGTERM drains in-flight requests; after this the process is killed outright. */
const STOP_GRACE_MS = 10_000;
/** Matches the product's rule (src/config.ts): a JWT secret has at least 32 characters. */
const JWT_SECRET = "bench-ingest-secret-bench-ingest-secret!";
/** Bun, the same binary that runs this bench, so the product runs on the version the repo pins. */
const BUN = process.execPath;
const ROOT = join(import.meta.dir, "..");

type Mode = "embedded" | "production";
const arg = process.argv.slice(2).find((a) => !a.startsWith("-"));
const productionAvailable = Boolean(process.env.DATABASE_URL && process.env.NATS_URL);
const modes: Mode[] = arg === "embedded" || arg === "production" ? [arg] : arg === "both" || (!arg && productionAvailable) ? ["embedded", "production"] : ["embedded"];
if (arg && !["embedded", "production", "both"].includes(arg)) throw new Error(`unknown mode ${arg}: embedded, production or both`);
if (modes.includes("production") && !productionAvailable) throw new Error("production mode needs DATABASE_URL and NATS_URL");

// Everything started is undone here, newest first, whatever way the bench ends; each entry
// is taken off the list before it runs, so a signal during cleanup never undoes twice.
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
/** Per mode: two product and two baseline loads with warm-ups, plus start-ups and set-up. */
const OVERALL_TIMEOUT_MS = modes.length * (4 * (SECONDS + WARMUP_SECONDS) * 1000 + 4 * STARTUP_TIMEOUT_MS);
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

function rssMb(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? NaN);
  return { rss: kb("VmRSS") / 1024, peak: kb("VmHWM") / 1024 };
}

const tail = (file: string) => {
  try {
    return readFileSync(file, "utf8").split("\n").slice(-20).join("\n");
  } catch {
    return "(no log)";
  }
};

type Service = { url: string; pid: number; stop: () => Promise<void> };

/** Spawns an entry file with exactly `env` (no inherited DATABASE_URL leaks into embedded), waits for /readyz. */
async function start(name: string, entry: string, env: Record<string, string>, logDir: string): Promise<Service> {
  const port = await freePort();
  const log = join(logDir, `${name}.log`);
  // BENCH_PROFILE=<dir>: the product writes a CPU profile there (bun --cpu-prof-md) when it stops.
  const flags = name === "product" && process.env.BENCH_PROFILE ? ["--cpu-prof-md", `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [];
  const proc = Bun.spawn([BUN, ...flags, join(ROOT, entry)], {
    cwd: ROOT,
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
  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (proc.exitCode !== null) throw new Error(`${name} exited with ${proc.exitCode} during start-up:\n${tail(log)}`);
    const ok = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(1_000) }).then((r) => r.ok, () => false);
    if (ok) return { url, pid: proc.pid, stop };
    await Bun.sleep(100);
  }
  throw new Error(`${name} not ready within ${STARTUP_TIMEOUT_MS / 1000} s:\n${tail(log)}`);
}

async function runOnce(entry: string, env: Record<string, string>): Promise<void> {
  const proc = Bun.spawn([BUN, join(ROOT, entry)], { cwd: ROOT, env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...env }, stdout: "pipe", stderr: "pipe" });
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
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  const parsed = (await res.json()) as any;
  if (!parsed.ok) throw new Error(`POST ${path}: ${res.status} ${JSON.stringify(parsed)}`);
  return parsed.result;
}

type LoadResult = { accepted: number; seconds: number; latencies: number[]; errors: Map<string, number> };

/** SENDERS closed loops, each POSTing until the deadline; only 200s count as accepted. */
async function load(base: string, botIds: string[], seconds: number, tag: string): Promise<LoadResult> {
  const latencies: number[] = [];
  const errors = new Map<string, number>();
  const fail = (key: string) => errors.set(key, (errors.get(key) ?? 0) + 1);
  const started = performance.now();
  const deadline = started + seconds * 1000;
  await Promise.all(Array.from({ length: SENDERS }, async (_, sender) => {
    for (let n = 0; performance.now() < deadline; n++) {
      const body = JSON.stringify({
        bot_id: botIds[(sender + n) % botIds.length],
        chat_id: `chat-${Math.floor(Math.random() * CHATS)}`,
        text: `bench message ${n} from sender ${sender}`,
        metadata: { client_message_id: `${tag}-${sender}-${n}` },
      });
      const t0 = performance.now();
      try {
        const res = await fetch(`${base}/api/messages`, {
          method: "POST", headers: { "content-type": "application/json" }, body, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
        });
        await res.arrayBuffer();
        if (res.status === 200) latencies.push(performance.now() - t0);
        else fail(String(res.status));
      } catch (err) {
        fail((err as Error).name === "TimeoutError" ? "timeout" : "network");
      }
    }
  }));
  const elapsed = (performance.now() - started) / 1000;
  return { accepted: latencies.length, seconds: elapsed, latencies: latencies.sort((a, b) => a - b), errors };
}

type Side = { idle?: { rss: number; peak: number }; after?: { rss: number; peak: number }; spread?: LoadResult; hot?: LoadResult };

/** Warm-up, the spread load over every bot, then the hot-bot load; RSS before and after. */
async function drive(service: Service, botIds: string[], tag: string): Promise<Side> {
  const side: Side = {};
  await Bun.sleep(IDLE_SETTLE_MS);
  side.idle = rssMb(service.pid);
  await load(service.url, botIds, WARMUP_SECONDS, `${tag}-warm`);
  side.spread = await load(service.url, botIds, SECONDS, `${tag}-spread`);
  side.hot = await load(service.url, [botIds[0]!], SECONDS, `${tag}-hot`);
  side.after = rssMb(service.pid);
  return side;
}

const rate = (r?: LoadResult) => (r ? r.accepted / r.seconds : NaN);
function line(name: string, r?: LoadResult): string {
  if (!r) return `${name.padEnd(30)} n/a`;
  const errors = [...r.errors].map(([k, v]) => `${k}×${v}`).join(" ") || "none";
  return `${name.padEnd(30)} ${rate(r).toFixed(0).padStart(7)} msgs/s  p50 ${percentile(r.latencies, 50).toFixed(1).padStart(7)} ms  p99 ${percentile(r.latencies, 99).toFixed(1).padStart(7)} ms  errors: ${errors}`;
}
const ratio = (product?: LoadResult, naive?: LoadResult) =>
  product && naive ? `product/baseline ×${(rate(product) / rate(naive)).toFixed(2)}` : "product/baseline n/a";
const mb = (m?: { rss: number; peak: number }) => (m ? `${m.rss.toFixed(0)} MB` : "n/a");

async function benchMode(mode: Mode): Promise<void> {
  const stamp = `${Date.now()}_${process.pid}`;
  const work = mkdtempSync(join(tmpdir(), `bench-ingest-${mode}-`));
  cleanups.push(() => rmSync(work, { recursive: true, force: true }));
  const productEnv: Record<string, string> = { RATE_LIMITS: "off", LOG_LEVEL: "warn", JWT_SECRET };
  const naiveEnv: Record<string, string> = {};

  if (mode === "production") {
    const admin = new URL(process.env.DATABASE_URL!);
    const name = `bench_ingest_${stamp}`;
    const adminSql = () => postgres(admin.href, { max: 1, onnotice: () => {}, connect_timeout: 5 });
    const sql = adminSql();
    await sql.unsafe(`create database ${name}`).finally(() => sql.end());
    cleanups.push(async () => {
      const dropper = adminSql();
      await dropper.unsafe(`drop database if exists ${name} with (force)`).finally(() => dropper.end());
    });
    const dbUrl = new URL(admin.href);
    dbUrl.pathname = `/${name}`;
    Object.assign(productEnv, { DATABASE_URL: dbUrl.href, NATS_URL: process.env.NATS_URL! });
    naiveEnv.NAIVE_DATABASE_URL = dbUrl.href;
    await runOnce("src/release.ts", productEnv);
  } else {
    productEnv.DATA_DIR = join(work, "product");
    naiveEnv.NAIVE_PGLITE_DIR = join(work, "naive-pgdata");
  }

  console.log(`\nmode ${mode}: ${SENDERS} senders, ${BOTS} bots (hot: 1 bot), chats among ${CHATS}, ${SECONDS} s each after ${WARMUP_SECONDS} s warm-up`);

  // The product: one process, as the issue measures it (web in production, all-in-one embedded).
  const product = await start("product", mode === "production" ? "src/web.ts" : "src/main.ts", productEnv, work);
  const { token } = await api(product.url, "/api/auth/register", { email: `bench-ingest-${stamp}@example.com`, password: "secret123" });
  const botIds: string[] = [];
  for (let i = 0; i < BOTS; i++) botIds.push((await api(product.url, "/api/bots", { name: `Ingest ${i}` }, token)).id);
  const productSide = await drive(product, botIds, `p${stamp}`);
  await product.stop();

  // The baseline, after the product has stopped, so neither competes with the other for the 2 cores.
  const naive = await start("naive", "bench/naive-ingest-server.ts", naiveEnv, work);
  const naiveSide = await drive(naive, Array.from({ length: BOTS }, () => crypto.randomUUID()), `n${stamp}`);
  await naive.stop();

  console.log(line("product, spread over bots", productSide.spread));
  console.log(line("naive baseline, spread", naiveSide.spread));
  console.log(`${"".padEnd(30)} ${ratio(productSide.spread, naiveSide.spread)}`);
  console.log(line("product, hot bot", productSide.hot));
  console.log(line("naive baseline, hot bot", naiveSide.hot));
  console.log(`${"".padEnd(30)} ${ratio(productSide.hot, naiveSide.hot)}`);
  console.log(`product RSS: idle after start-up ${mb(productSide.idle)}, after the load ${mb(productSide.after)}, peak ${productSide.after?.peak.toFixed(0) ?? "n/a"} MB`);
  console.log(`naive   RSS: idle after start-up ${mb(naiveSide.idle)}, after the load ${mb(naiveSide.after)}, peak ${naiveSide.after?.peak.toFixed(0) ?? "n/a"} MB`);
}

let failed = false;
try {
  console.log(`ingest bench on ${navigator.hardwareConcurrency} cores; load generator shares the machine with the server under test`);
  // Each mode's processes, files and database are gone before the next mode starts.
  for (const mode of modes) await benchMode(mode).finally(cleanup);
} catch (err) {
  failed = true;
  console.error(`ingest bench failed: ${(err as Error).stack ?? err}`);
} finally {
  await cleanup();
  clearTimeout(watchdog);
}
process.exit(failed ? 1 : 0);
