// Small helpers shared by the benchmarks: percentiles, a same-process baseline ratio, the
// CPU time another process has used, and their numeric command-line options.
import { readFileSync } from "node:fs";

/** The number after `--<name>` on the command line, or `fallback` when the option is absent. */
export function numberArg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}

/** The machine's nats-server (the oldest one running), whose CPU the benches that use it report; undefined when none runs. */
export function machineNatsServerPid(): number | undefined {
  return Number(Bun.spawnSync(["pgrep", "-o", "-x", "nats-server"]).stdout.toString().trim()) || undefined;
}

/** Kernel clock ticks per second (/proc/<pid>/stat counts CPU time in these); 100 on Linux. */
const CLOCK_TICKS = 100;

/** utime + stime of a process (all its threads), in ms, from /proc; 0 once it is gone (or unknown). */
export function processCpuMs(pid: number | undefined): number {
  return pid ? statCpuMs(`/proc/${pid}/stat`) : 0;
}

/**
 * utime + stime of a process's main thread alone, in ms. Why: the JavaScript (and, embedded,
 * PGlite's WebAssembly) runs on that one thread, so it caps throughput when it nears 1,000 ms
 * per second however many cores the process's other threads use.
 */
export function mainThreadCpuMs(pid: number | undefined): number {
  return pid ? statCpuMs(`/proc/${pid}/task/${pid}/stat`) : 0;
}

function statCpuMs(path: string): number {
  try {
    const stat = readFileSync(path, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return 0;
  }
}

/** The machine's CPU time so far, idle and in all, in clock ticks (/proc/stat's first line). */
export function machineCpuTicks(): { idle: number; total: number } {
  const fields = readFileSync("/proc/stat", "utf8").split("\n", 1)[0]!.trim().split(/\s+/).slice(1, 9).map(Number);
  // user nice system idle iowait irq softirq steal: idle and iowait are time no process wanted a core.
  return { idle: fields[3]! + fields[4]!, total: fields.reduce((sum, ticks) => sum + ticks, 0) };
}

export function percentile(sortedMs: number[], p: number): number {
  if (sortedMs.length === 0) return NaN;
  const index = Math.min(sortedMs.length - 1, Math.ceil((p / 100) * sortedMs.length) - 1);
  return sortedMs[Math.max(0, index)]!;
}

export async function measure(runs: number, fn: (i: number) => Promise<unknown>): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await fn(i);
    times.push(performance.now() - start);
  }
  return times.sort((a, b) => a - b);
}

export function report(name: string, times: number[], baseline?: number[]): string {
  const p50 = percentile(times, 50);
  const p95 = percentile(times, 95);
  const p99 = percentile(times, 99);
  let line = `${name.padEnd(34)} p50 ${p50.toFixed(2).padStart(8)} ms  p95 ${p95.toFixed(2).padStart(8)} ms  p99 ${p99.toFixed(2).padStart(8)} ms`;
  if (baseline) line += `  (p50 ×${(p50 / percentile(baseline, 50)).toFixed(1)} baseline)`;
  return line;
}
