// Small helpers shared by the benchmarks: percentiles and a same-process baseline ratio.

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
