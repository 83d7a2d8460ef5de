// Chaos harness, processes: temp dirs, free ports, log files, and restartable programs
// spawned in their own process group, all torn down by the scenario file's afterAll even
// when the scenario failed, and by an exit hook if the runner dies first.
import { afterAll } from "bun:test";
import type { Subprocess } from "bun";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

export const ROOT = resolve(import.meta.dir, "../..");
export const OUT = join(ROOT, "test-output", "chaos");

// --- cleanup -------------------------------------------------------------------------------

const cleanups: Array<() => Promise<void> | void> = [];
/** Process groups still alive; killed synchronously if the test runner exits without afterAll. */
const liveGroups = new Set<number>();
process.on("exit", () => {
  for (const pgid of liveGroups) try { process.kill(-pgid, "SIGKILL"); } catch {}
});

export function onCleanup(fn: () => Promise<void> | void): void {
  cleanups.push(fn);
}

/** Every scenario file calls this once; later registrations run first (services outlive their clients). */
export function useCleanup(): void {
  afterAll(async () => {
    for (const fn of cleanups.splice(0).reverse()) {
      try {
        await fn();
      } catch (err) {
        console.error("chaos cleanup:", err);
      }
    }
  });
}

export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), `chaos-${prefix}-`));
  onCleanup(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export { freePort } from "../support/ports.ts";

export function logPath(name: string): string {
  mkdirSync(OUT, { recursive: true });
  return join(OUT, name);
}

export function tail(path: string, lines = 30): string {
  try {
    return readFileSync(path, "utf8").trimEnd().split("\n").slice(-lines).join("\n");
  } catch {
    return "(no log)";
  }
}

// --- processes -----------------------------------------------------------------------------

export interface ExitRecord {
  name: string;
  code: number | null;
  signal: NodeJS.Signals | number | null;
  expected: boolean;
  log: string;
}

/**
 * One long-running program, restartable under the same name. It is started through setsid so
 * that kill -9 hits its whole process group, and each incarnation logs to its own file.
 */
export class Proc {
  child: Subprocess | undefined;
  incarnation = 0;
  log = "";
  readonly exits: ExitRecord[] = [];
  private expectingExit = false;

  constructor(
    readonly name: string,
    readonly argv: string[],
    readonly env: Record<string, string>,
    /** Where it runs: the checkout, unless a test runs a copy of it (the production install). */
    readonly cwd: string = ROOT,
  ) {
    onCleanup(() => this.kill("SIGKILL"));
  }

  start(): this {
    this.incarnation++;
    this.log = logPath(`${this.name}.${this.incarnation}.log`);
    this.expectingExit = false;
    writeFileSync(this.log, "");
    // sh execs the program (same pid, so setsid's group is the program's); one appended file
    // keeps stdout and stderr lines in the order they were written.
    const child = Bun.spawn(["setsid", "sh", "-c", 'exec "$0" "$@" >>"$CHAOS_LOG" 2>&1', ...this.argv], {
      cwd: this.cwd,
      env: { ...this.env, CHAOS_LOG: this.log },
      stdin: "ignore",
      stdout: "ignore",
      stderr: "ignore",
    });
    this.child = child;
    liveGroups.add(child.pid);
    const log = this.log;
    void child.exited.then(() => {
      liveGroups.delete(child.pid);
      this.exits.push({ name: this.name, code: child.exitCode, signal: child.signalCode, expected: this.expectingExit, log });
    });
    return this;
  }

  get alive(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Exits nobody asked for (a crash): the scenarios assert there are none. */
  get crashes(): ExitRecord[] {
    return this.exits.filter((e) => !e.expected);
  }

  async kill(signal: NodeJS.Signals = "SIGKILL", graceMs = 10_000): Promise<void> {
    const child = this.child;
    if (!child || !this.alive) return;
    this.expectingExit = true;
    try { process.kill(-child.pid, signal); } catch {}
    const exited = await Promise.race([child.exited.then(() => true), Bun.sleep(graceMs).then(() => false)]);
    if (!exited) {
      try { process.kill(-child.pid, "SIGKILL"); } catch {}
      await child.exited;
    }
  }

  tail(lines = 30): string {
    return `--- ${this.log} ---\n${tail(this.log, lines)}`;
  }
}

export async function probe(url: string, timeoutMs = 3000): Promise<number> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    await res.arrayBuffer();
    return res.status;
  } catch {
    return 0;
  }
}

export async function waitFor(
  what: string, check: () => boolean | Promise<boolean>, timeoutMs: number, diagnose: () => string = () => "", alive: () => boolean = () => true,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    if (!alive()) throw new Error(`${what}: the process exited\n${diagnose()}`);
    await Bun.sleep(100);
  }
  throw new Error(`${what}: not within ${timeoutMs} ms\n${diagnose()}`);
}

/**
 * Samples /readyz every `everyMs` until stopped, so a scenario can say what it answered while
 * a dependency was down and after it came back.
 */
