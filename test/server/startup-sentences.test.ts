// Every way a start can go wrong ends in one sentence on stderr and exit code 1, never a
// stack trace, a hang or a process that serves beside another: each case spawns the real
// entry point with only the environment given here. The cases that need a database use a
// fresh one on the machine's PostgreSQL (127.0.0.1:5432) and its NATS (4222), like CI.
// They start processes of their own, so they run in one pass of CI (the embedded one).
import { afterAll, describe, expect, test } from "bun:test";
import type { Subprocess } from "bun";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "../..");
const BUN = join(ROOT, "node_modules/.bin/bun");
const SECRET = "startup-sentences-secret-0123456789abcdef";
const SHARED_PG = "postgres://postgres@127.0.0.1:5432";
const SHARED_NATS = "nats://127.0.0.1:4222";
const DEAD_NATS = "nats://127.0.0.1:1";
const ONE_PASS = !process.env.DATABASE_URL;

const tempDirs: string[] = [];
const children: Subprocess[] = [];
const databases: string[] = [];

afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
  for (const db of databases) await psql(`drop database if exists "${db}" with (force)`);
}, 60_000);

async function psql(sql: string): Promise<void> {
  const proc = Bun.spawn(["psql", "-h", "127.0.0.1", "-U", "postgres", "-v", "ON_ERROR_STOP=1", "-qc", sql], { stdout: "ignore", stderr: "pipe" });
  const [err, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`psql ${sql}: ${err}`);
}

async function freshDatabase(): Promise<string> {
  const name = `startup_${Date.now()}_${Math.random().toString(36).slice(2, 8)}`;
  await psql(`create database "${name}"`);
  databases.push(name);
  return `${SHARED_PG}/${name}`;
}

function tempDataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "botinbox-sentences-"));
  tempDirs.push(dir);
  return dir;
}

function spawnEntry(entry: string, env: Record<string, string>) {
  const child = Bun.spawn([BUN, entry], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? tmpdir(), LOG_LEVEL: "info", ...env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  children.push(child);
  return child;
}

/** Runs an entry point to its end; one that outlives `limitMs` is killed (and fails the test). */
async function runToExit(entry: string, env: Record<string, string>, limitMs = 30_000) {
  const child = spawnEntry(entry, env);
  const timer = setTimeout(() => child.kill("SIGKILL"), limitMs);
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  clearTimeout(timer);
  return { code, stdout, stderr, signal: child.signalCode };
}

/** The one sentence: a single "startup error:" line on stderr, no stack trace. */
function expectSentence(run: { code: number | null; stderr: string; signal: unknown }, words: string) {
  expect(run.signal).toBeNull();
  expect(run.code).toBe(1);
  const lines = run.stderr.trim().split("\n");
  expect(lines).toHaveLength(1);
  expect(lines[0]).toStartWith("startup error: ");
  expect(lines[0]).toContain(words);
}

/** Everything a child wrote to stdout so far; read continuously so its pipe never fills. */
const outputs = new WeakMap<Subprocess, { text: string }>();

function outputOf(child: Subprocess<"ignore", "pipe", "pipe">): { text: string } {
  let out = outputs.get(child);
  if (!out) {
    const o = { text: "" };
    outputs.set(child, o);
    void (async () => {
      const decoder = new TextDecoder();
      const reader = child.stdout.getReader();
      for (;;) {
        const chunk = await reader.read();
        if (chunk.done) return;
        o.text += decoder.decode(chunk.value, { stream: true });
      }
    })();
    out = o;
  }
  return out;
}

/** Waits until a stdout line contains `text`; returns all read so far. */
async function waitForLine(child: Subprocess<"ignore", "pipe", "pipe">, text: string, timeoutMs = 45_000): Promise<string> {
  const out = outputOf(child);
  const deadline = Date.now() + timeoutMs;
  while (!out.text.includes(text) && Date.now() < deadline && child.exitCode === null) await Bun.sleep(50);
  if (!out.text.includes(text)) throw new Error(`no line with "${text}"; stdout so far:\n${out.text}\nstderr: ${child.exitCode !== null ? await new Response(child.stderr).text() : "(running)"}`);
  return out.text;
}

async function stop(child: Subprocess) {
  child.kill("SIGTERM");
  await Promise.race([child.exited, Bun.sleep(15_000).then(() => child.kill("SIGKILL"))]);
}

describe.skipIf(!ONE_PASS)("start-up sentences", () => {
  test.each(["src/webhook.ts", "src/push.ts", "src/mail.ts"])("%s without DATABASE_URL and NATS_URL refuses to start", async (entry) => {
    const run = await runToExit(entry, { DATA_DIR: tempDataDir() });
    expectSentence(run, "needs DATABASE_URL and NATS_URL");
  }, 40_000);

  test("web alone without DATABASE_URL and NATS_URL says it runs embedded, and serves", async () => {
    const child = spawnEntry("src/web.ts", { PORT: "0", HOST: "127.0.0.1", DATA_DIR: tempDataDir() });
    const out = await waitForLine(child, "serving on");
    expect(out).toContain("web runs embedded");
    const url = /"url":"(http:[^"]+)"/.exec(out)![1]!;
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    await stop(child);
  }, 60_000);

  test("web on a database without the migrations says to run release", async () => {
    const run = await runToExit("src/web.ts", { DATABASE_URL: await freshDatabase(), NATS_URL: SHARED_NATS, JWT_SECRET: SECRET, PORT: "0" });
    expectSentence(run, "run release");
  }, 40_000);

  test("an unreachable NATS_URL says so", async () => {
    const run = await runToExit("src/webhook.ts", { DATABASE_URL: await freshDatabase(), NATS_URL: DEAD_NATS, JWT_SECRET: SECRET });
    expectSentence(run, "cannot reach NATS_URL");
  }, 40_000);

  test("a port in use says so", async () => {
    const holder = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    try {
      const run = await runToExit("src/main.ts", { PORT: String(holder.port), HOST: "127.0.0.1", DATA_DIR: tempDataDir() });
      expectSentence(run, `port ${holder.port} on 127.0.0.1 is already in use`);
    } finally {
      holder.stop(true);
    }
  }, 60_000);

  test("a second process on the same DATA_DIR names the first one's pid; a dead owner's lock is taken over", async () => {
    const dataDir = tempDataDir();
    const first = spawnEntry("src/main.ts", { PORT: "0", HOST: "127.0.0.1", DATA_DIR: dataDir });
    await waitForLine(first, "serving on");
    const second = await runToExit("src/main.ts", { PORT: "0", HOST: "127.0.0.1", DATA_DIR: dataDir });
    expectSentence(second, `is in use by process ${first.pid}`);
    first.kill("SIGKILL");
    await first.exited;
    // kill -9 left the lock file behind; its owner is gone, so the next start takes it.
    const third = spawnEntry("src/main.ts", { PORT: "0", HOST: "127.0.0.1", DATA_DIR: dataDir });
    await waitForLine(third, "serving on");
    await stop(third);
    expect(third.exitCode).toBe(0);
  }, 120_000);

  test("a lock file naming a live process that is not ours still refuses", async () => {
    const dataDir = tempDataDir();
    // pid 1 is always alive (and never a botinbox process).
    writeFileSync(join(dataDir, "botinbox.lock"), "1\n");
    const run = await runToExit("src/main.ts", { PORT: "0", HOST: "127.0.0.1", DATA_DIR: dataDir });
    expectSentence(run, "is in use by process 1");
  }, 40_000);
});
