// One side of bench/ingest.ts measured over one bounded wrk run: msgs/s, latency, CPU per
// accepted message per process (bun, its database's backends, nats-server), and, on PostgreSQL,
// commits, WAL, HOT updates and autovacuum runs; and how a side's runs are summed up.
import { statSync } from "node:fs";
import { join } from "node:path";
import type postgres from "postgres";
import { machineCpuTicks, mainThreadCpuMs, processCpuMs } from "./stats.ts";
import { walByRelation } from "./wal-by-relation.ts";

/** BENCH_WAL_BY_RELATION=1: after each run on PostgreSQL, where its WAL went (bench/wal-by-relation.ts). */
const WAL_BY_RELATION = Boolean(process.env.BENCH_WAL_BY_RELATION);

/** Two wrk threads: the machine has two cores and wrk must not take the server's CPU. */
export const WRK_THREADS = 2;
export const WRK = "/usr/bin/wrk";

/** The load of a run (bench/ingest.ts reads it from its environment). */
export interface WrkLoad {
  connections: number;
  /** Chats drawn among this many. */
  chats: number;
  /** Bounds a run in count as well as time (each wrk thread stops after its share). */
  maxRequests: number;
}

/** What one side of a run is measured by: its server, where its database lives, its broker. */
export interface Target {
  name: string;
  service: { url: string; pid: number };
  botIds: string[];
  /** The side's own database (production): its backends' CPU and its table counters. */
  sql?: postgres.Sql;
  natsPid?: number;
  /** BENCH_GC: the log its process writes JSC's collection lines to (BUN_JSC_logGC=1). */
  gcLog?: string;
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
type Counters = { commits: number; wal: number; checkpoints: number; tables: Map<string, TableCounters> };
/** A table's counters before the run when it had none yet (created during the run). */
const NO_COUNTS: TableCounters = { upd: 0, hot: 0, ins: 0, vacuums: 0, analyzes: 0 };
async function dbCounters(sql?: postgres.Sql): Promise<Counters | undefined> {
  if (!sql) return undefined;
  const [db] = await sql<{ commits: string; wal: string; checkpoints: string }[]>`
    select xact_commit::text as commits, (pg_current_wal_insert_lsn() - '0/0'::pg_lsn)::text as wal,
      (select checkpoints_timed + checkpoints_req from pg_stat_bgwriter)::text as checkpoints
    from pg_stat_database where datname = current_database()`;
  const rows = await sql<{ relname: string; upd: string; hot: string; ins: string; vacuums: string; analyzes: string }[]>`
    select relname, n_tup_upd::text as upd, n_tup_hot_upd::text as hot, n_tup_ins::text as ins,
      autovacuum_count::text as vacuums, autoanalyze_count::text as analyzes from pg_stat_user_tables`;
  return {
    commits: Number(db!.commits), wal: Number(db!.wal), checkpoints: Number(db!.checkpoints),
    tables: new Map(rows.map((r) => [r.relname, { upd: Number(r.upd), hot: Number(r.hot), ins: Number(r.ins), vacuums: Number(r.vacuums), analyzes: Number(r.analyzes) }])),
  };
}

export interface RunResult {
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
  /**
   * Checkpoints the server started during the run. Why: after one starts, each page's first
   * change is logged whole and commits flush more WAL; round 22 found the p99 stalls there.
   */
  checkpoints?: number;
  /** BENCH_WAL_BY_RELATION: the run's WAL per message by relation and record kind. */
  walByRelation?: string[];
  updates?: string;
  /**
   * Autovacuum and autoanalyze runs finished during the run, by table. Why: each takes a core for
   * a moment, on a 2-core machine a stall in the run's p99; this says whether one fell in the run.
   */
  maintenance?: string;
  /** BENCH_GC: the collections that started during the run and the pauses they made. */
  gc?: GcFigures;
}

/**
 * What the collector did during a run, from JSC's log (BUN_JSC_logGC=1): each collection's START
 * line names its kind, each `p=` is one stop of the mutator. Why: a pause holds every request in
 * flight (round 31); beside the run's p99 it says how much of the tail the collector can explain.
 */
export interface GcFigures { eden: number; full: number; pauseMs: number; longestMs: number; over5ms: number }

async function gcSince(file: string, from: number): Promise<GcFigures> {
  const text = await Bun.file(file).slice(from).text();
  const pauses = [...text.matchAll(/\bp=([0-9.]+)ms/g)].map((m) => Number(m[1]));
  return {
    eden: text.match(/=> EdenCollection/g)?.length ?? 0,
    full: text.match(/=> FullCollection/g)?.length ?? 0,
    pauseMs: pauses.reduce((a, b) => a + b, 0),
    longestMs: pauses.reduce((a, b) => Math.max(a, b), 0),
    over5ms: pauses.filter((p) => p > 5).length,
  };
}

/** One bounded wrk run against a side; CPU and table counters read before and after. */
export async function wrkRun(t: Target, load: WrkLoad, bots: string[], seconds: number, tag: string): Promise<RunResult> {
  await t.sql?.unsafe("select pg_stat_clear_snapshot()");
  const before = await sampleCpu(t);
  const countersBefore = await dbCounters(t.sql);
  const machineBefore = machineCpuTicks();
  // The log exists from the process's start (bench/ingest.ts opens it before spawning).
  const gcFrom = t.gcLog ? statSync(t.gcLog).size : 0;
  const proc = Bun.spawn([WRK, `-t${WRK_THREADS}`, `-c${load.connections}`, `-d${seconds}s`, "--timeout", "10s", "-s", join(import.meta.dir, "ingest.lua"), t.service.url], {
    env: { ...process.env, BENCH_BOT_IDS: bots.join(","), BENCH_CHATS: String(load.chats), BENCH_TAG: tag, BENCH_MAX_PER_THREAD: String(Math.ceil(load.maxRequests / WRK_THREADS)) },
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
  const gc = t.gcLog ? await gcSince(t.gcLog, gcFrom) : undefined;
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
    gc,
  };
  if (countersBefore && countersAfter) {
    result.commitsPerMsg = (countersAfter.commits - countersBefore.commits) / Math.max(1, accepted);
    result.walBytesPerMsg = (countersAfter.wal - countersBefore.wal) / Math.max(1, accepted);
    result.checkpoints = countersAfter.checkpoints - countersBefore.checkpoints;
    const moved = [...countersAfter.tables].map(([name, a]) => {
      const was = countersBefore.tables.get(name) ?? NO_COUNTS;
      return { name, upd: a.upd - was.upd, hot: a.hot - was.hot, vacuums: a.vacuums - was.vacuums, analyzes: a.analyzes - was.analyzes };
    });
    result.updates = moved.flatMap((t) => (t.upd > 0 ? [`${t.name} ${t.hot}/${t.upd} HOT`] : [])).join(", ");
    if (WAL_BY_RELATION) result.walByRelation = await walByRelation(t.sql!, countersBefore.wal, countersAfter.wal, accepted);
    result.maintenance = moved.flatMap((t) => (t.vacuums || t.analyzes ? [`${t.name} ${t.vacuums}/${t.analyzes}`] : [])).join(", ");
  }
  return result;
}

export const rate = (r: RunResult) => r.accepted / r.seconds;
export const cpuTotal = (r: RunResult) => r.cpu.bun + r.cpu.postgres + r.cpu.nats;
export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
export function describe(name: string, runs: RunResult[]): string {
  const r = runs.map(rate);
  const m = (f: (x: RunResult) => number) => median(runs.map(f));
  const cpu = `CPU ms/msg bun ${m((x) => x.cpu.bun).toFixed(3)} (main thread ${m((x) => x.cpu.bunMain).toFixed(3)}, busy ${(m((x) => x.mainBusy) * 100).toFixed(0)} %) pg ${m((x) => x.cpu.postgres).toFixed(3)} nats ${m((x) => x.cpu.nats).toFixed(3)} = ${m(cpuTotal).toFixed(3)}; cores idle ${(m((x) => x.idle) * 100).toFixed(0)} %`;
  const extra = runs[0]!.commitsPerMsg === undefined ? "" : `\n${"".padEnd(28)} commits/msg ${m((x) => x.commitsPerMsg!).toFixed(3)}; WAL B/msg ${m((x) => x.walBytesPerMsg!).toFixed(0)}; checkpoints started ${runs.map((x) => x.checkpoints).join(" / ")}; updates: ${runs.at(-1)!.updates || "none"}\n${"".padEnd(28)} autovacuum/autoanalyze runs: ${runs.at(-1)!.maintenance || "none"}`;
  const gc = runs[0]!.gc === undefined ? "" : `\n${"".padEnd(28)} collections per 1,000 msgs ${m((x) => ((x.gc!.eden + x.gc!.full) * 1000) / x.accepted).toFixed(2)} (full ${m((x) => (x.gc!.full * 1000) / x.accepted).toFixed(2)}); pauses ${m((x) => x.gc!.pauseMs / x.seconds).toFixed(1)} ms per s, ${m((x) => x.gc!.over5ms / x.seconds).toFixed(2)} per s over 5 ms, longest ${runs.map((x) => x.gc!.longestMs.toFixed(1)).join(" / ")} ms`;
  const wal = runs.at(-1)!.walByRelation?.map((line) => `\n${"".padEnd(28)} ${line}`).join("") ?? "";
  return `${name.padEnd(28)} ${r.map((x) => x.toFixed(0)).join(" / ").padStart(18)} msgs/s (median ${median(r).toFixed(0)})  p50 ${m((x) => x.p50).toFixed(1)} ms  p99 ${m((x) => x.p99).toFixed(1)} ms${runs.length > 1 ? ` (${runs.map((x) => x.p99.toFixed(1)).join(" / ")})` : ""}  errors: ${runs.map((x) => x.errors).join("; ")}\n${"".padEnd(28)} ${cpu}${extra}${gc}${wal}`;
}
