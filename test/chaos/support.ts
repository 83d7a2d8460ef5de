// Chaos harness, services and processes: private PostgreSQL and NATS instances on their own
// ports and temp dirs (never the machine's shared 5432/4222), the product's real entry points
// spawned as separate processes, and cleanup that runs even when a scenario fails.
// Traffic (senders, reader, checker, flaky webhook receiver) lives in traffic.ts.
import { afterAll, test } from "bun:test";
import type { Subprocess } from "bun";
import { chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, copyFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

export * from "./traffic.ts";
import type { Attempt } from "./traffic.ts";

export const ROOT = resolve(import.meta.dir, "../..");
export const OUT = join(ROOT, "test-output", "chaos");
const BUN = join(ROOT, "node_modules/.bin/bun");
const PG_BIN = "/usr/lib/postgresql/15/bin";
const NATS_SERVER = "/usr/sbin/nats-server";
/** Same for every process: user tokens and encrypted bot tokens must survive a restart. */
const JWT_SECRET = "chaos-suite-jwt-secret-0123456789-abcdefghij";

const HAVE_SERVICES = [NATS_SERVER, join(PG_BIN, "initdb"), join(PG_BIN, "pg_ctl"), "/usr/sbin/runuser", "/usr/bin/setsid"].every(existsSync);

/**
 * CI runs the whole suite twice (embedded, then production); these scenarios start their own
 * services, so they run only in the embedded pass. Missing binaries skip locally, but in CI a
 * silent skip would hide that the promise is untested, so there the scenario fails instead.
 */
export function chaosTest(name: string, fn: () => Promise<void>, options: { timeoutMs: number; services: boolean }) {
  if (process.env.DATABASE_URL) return test.skip(`${name} (runs in the embedded pass only)`, () => {});
  if (options.services && !HAVE_SERVICES) {
    if (!process.env.CI) return test.skip(`${name} (nats-server or PostgreSQL 15 binaries missing)`, () => {});
    return test(name, () => {
      throw new Error(`chaos suite needs ${NATS_SERVER} and ${PG_BIN}/{initdb,pg_ctl}, runuser and setsid`);
    });
  }
  return test(name, fn, options.timeoutMs);
}

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

/** A port nobody listens on now; the tiny race with other programs is acceptable here. */
export function freePort(): number {
  const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = probe.port;
  probe.stop(true);
  return port;
}

export function logPath(name: string): string {
  mkdirSync(OUT, { recursive: true });
  return join(OUT, name);
}

function tail(path: string, lines = 30): string {
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
      cwd: ROOT,
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

// --- private NATS --------------------------------------------------------------------------

export class PrivateNats {
  readonly port = freePort();
  readonly dir = tempDir("nats");
  readonly url = `nats://127.0.0.1:${this.port}`;
  readonly proc: Proc;

  /** `scenario` prefixes the log file, so one scenario's logs do not overwrite another's. */
  constructor(scenario: string) {
    const argv = [NATS_SERVER, "-a", "127.0.0.1", "-p", String(this.port), "-js", "-sd", join(this.dir, "js")];
    this.proc = new Proc(`${scenario}.nats`, argv, { PATH: process.env.PATH ?? "/usr/bin:/bin" });
  }

  async start(): Promise<void> {
    this.proc.start();
    await waitFor(`NATS on ${this.port}`, () => tcpOpen(this.port), 15_000, () => this.proc.tail());
  }

  /** SIGTERM: an orderly outage, so what NATS acknowledged is on disk when it comes back. */
  stop(): Promise<void> {
    return this.proc.kill("SIGTERM");
  }
}

async function tcpOpen(port: number): Promise<boolean> {
  try {
    const socket = await Bun.connect({ hostname: "127.0.0.1", port, socket: { data() {} } });
    socket.end();
    return true;
  } catch {
    return false;
  }
}

// --- private PostgreSQL --------------------------------------------------------------------

const asPostgres = (args: string[]) => ["runuser", "-u", "postgres", "--", ...args];

async function run(argv: string[], what: string): Promise<string> {
  const proc = Bun.spawn(argv, { stdout: "pipe", stderr: "pipe", env: { PATH: process.env.PATH ?? "/usr/bin:/bin", LANG: "C" } });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`${what} failed (${code}): ${out}\n${err}`);
  return out;
}

export class PrivatePostgres {
  readonly port = freePort();
  readonly dir = tempDir("pg");
  readonly data = join(this.dir, "data");
  readonly logFile = join(this.dir, "postgres.log");
  readonly url = `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  /** fsync off: only the server process restarts here, never the machine, and the disk is shared. */
  constructor(private readonly scenario: string) {}

  private readonly options = `-c port=${this.port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=${this.dir} -c fsync=off -c max_connections=200`;

  async start(): Promise<void> {
    const { uid, gid } = postgresIds();
    chownSync(this.dir, uid, gid);
    writeFileSync(this.logFile, "");
    chownSync(this.logFile, uid, gid);
    onCleanup(() => this.destroy());
    await run(asPostgres([join(PG_BIN, "initdb"), "-D", this.data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"]), "initdb");
    await this.pgCtl("start");
  }

  /** `pg_ctl restart -m fast`: every connection is cut, the server is back within a second. */
  restart(): Promise<void> {
    return this.pgCtl("restart");
  }

  private async pgCtl(action: "start" | "restart"): Promise<void> {
    const args = [join(PG_BIN, "pg_ctl"), "-D", this.data, "-l", this.logFile, "-w", "-t", "30", "-m", "fast", "-o", this.options, action];
    await run(asPostgres(args), `pg_ctl ${action}`);
  }

  private async destroy(): Promise<void> {
    if (existsSync(this.logFile)) copyFileSync(this.logFile, logPath(`${this.scenario}.postgres.log`));
    await run(asPostgres([join(PG_BIN, "pg_ctl"), "-D", this.data, "-m", "immediate", "-w", "stop"]), "pg_ctl stop").catch(() => undefined);
    // A postmaster pg_ctl could not stop (it timed out) must not outlive the run.
    try {
      const pid = Number(readFileSync(join(this.data, "postmaster.pid"), "utf8").split("\n")[0]);
      if (pid > 0) process.kill(pid, "SIGKILL");
    } catch {}
  }
}

function postgresIds(): { uid: number; gid: number } {
  const line = readFileSync("/etc/passwd", "utf8").split("\n").find((l) => l.startsWith("postgres:"));
  if (!line) throw new Error("no postgres user");
  const [, , uid, gid] = line.split(":");
  return { uid: Number(uid), gid: Number(gid) };
}

// --- the product's processes ---------------------------------------------------------------

export interface Services {
  databaseUrl: string;
  natsUrl: string;
}

/**
 * Explicit env, nothing inherited: the test runner's preload sets defaults (and CI may set
 * DATABASE_URL) that must not leak into a process of another mode.
 * LOG_LEVEL info, not warn: the only info lines are the start line and the outbox relay's
 * "republished" line, both wanted when reading a failure.
 */
function productEnv(extra: Record<string, string>): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: process.env.HOME ?? "/root",
    JWT_SECRET,
    RATE_LIMITS: "off",
    ALLOW_PRIVATE_WEBHOOKS: "1",
    LOG_LEVEL: "info",
    ...extra,
  };
}

export async function migrate(scenario: string, services: Services): Promise<void> {
  const proc = new Proc(`${scenario}.release`, [BUN, "src/release.ts"], productEnv({ DATABASE_URL: services.databaseUrl, NATS_URL: services.natsUrl }));
  proc.start();
  const code = await proc.child!.exited;
  if (code !== 0) throw new Error(`release (migrate) exited with ${code}\n${proc.tail()}`);
}

/** An HTTP-serving process (`web`, or the embedded all-in-one) on a fixed port, so a restart keeps its URL. */
export class WebProc extends Proc {
  readonly port: number;
  readonly url: string;

  constructor(name: string, entry: string, env: Record<string, string>) {
    const port = freePort();
    super(name, [BUN, entry], productEnv({ ...env, PORT: String(port), HOST: "127.0.0.1" }));
    this.port = port;
    this.url = `http://127.0.0.1:${port}`;
  }

  /** Started, /healthz, then /readyz answer 200. */
  async up(timeoutMs = 30_000): Promise<this> {
    this.start();
    for (const path of ["/healthz", "/readyz"]) {
      await waitFor(`${this.name} ${path}`, async () => (await probe(this.url + path)) === 200, timeoutMs, () => this.tail(), () => this.alive);
    }
    return this;
  }
}

export function webProcess(name: string, services: Services): WebProc {
  return new WebProc(name, "src/web.ts", { DATABASE_URL: services.databaseUrl, NATS_URL: services.natsUrl });
}

export function embeddedProcess(name: string, dataDir: string): WebProc {
  return new WebProc(name, "src/main.ts", { DATA_DIR: dataDir });
}

export class WebhookProc extends Proc {
  constructor(name: string, services: Services) {
    super(name, [BUN, "src/webhook.ts"], productEnv({ DATABASE_URL: services.databaseUrl, NATS_URL: services.natsUrl }));
  }

  /** The worker has no HTTP front; its start line ("delivering webhooks…") says it serves. */
  async up(timeoutMs = 30_000): Promise<this> {
    this.start();
    await waitFor(`${this.name} start line`, () => readFileSync(this.log, "utf8").includes("delivering webhooks"), timeoutMs, () => this.tail(), () => this.alive);
    return this;
  }
}

/** Status of one GET, 0 when no answer came within the timeout. */
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
export class ReadyWatch {
  readonly samples: Array<{ at: number; status: number }> = [];
  private running = true;
  private readonly done: Promise<void>;

  constructor(url: string, everyMs = 250) {
    this.done = (async () => {
      while (this.running) {
        const at = Date.now();
        this.samples.push({ at, status: await probe(`${url}/readyz`, 2000) });
        await Bun.sleep(Math.max(0, everyMs - (Date.now() - at)));
      }
    })();
  }

  between(from: number, to: number): number[] {
    return this.samples.filter((s) => s.at >= from && s.at <= to).map((s) => s.status);
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.done;
  }
}

/** Exits nobody asked for, as problems for the verdict. */
export function crashProblems(procs: Proc[]): string[] {
  return procs.flatMap((p) => p.crashes.map((e) => `${e.name} exited by itself (code ${e.code}, signal ${e.signal}); log ${e.log}\n${p.tail(15)}`));
}

/** Requests slower than `limitMs` (timeouts included): nothing may wait that long for a dependency. */
export function slowProblems(attempts: Attempt[], limitMs: number): string[] {
  const slow = attempts.filter((a) => a.ms > limitMs || a.error === "timeout");
  if (!slow.length) return [];
  const first = slow.slice(0, 5).map((a) => `${a.ms} ms → ${a.status || a.error}`).join(", ");
  return [`${slow.length} request(s) took longer than ${limitMs} ms (or timed out): ${first}`];
}
