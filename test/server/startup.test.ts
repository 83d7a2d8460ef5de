// `npm start` as an operator runs it: a child process with only the environment given
// here (none of the test process's settings leak in). Bad configuration must end in
// exit code 1 with a sentence that names the problem, never a hang; a good start logs
// its URL, serves, and drains on SIGTERM with exit code 0.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";

const ROOT = join(import.meta.dir, "../..");
const BUN = join(ROOT, "node_modules/.bin/bun");
const SECRET = "startup-test-secret-0123456789abcdef";
/** Nothing listens on port 1, so connecting fails at once rather than timing out. */
const DEAD_DATABASE = "postgres://postgres@127.0.0.1:1/x";
const DEAD_NATS = "nats://127.0.0.1:1";

const tempDirs: string[] = [];
const children: Subprocess[] = [];

afterAll(() => {
  for (const child of children) if (child.exitCode === null && !child.killed) child.kill("SIGKILL");
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

function tempDataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "botinbox-startup-"));
  tempDirs.push(dir);
  return dir;
}

function spawnMain(env: Record<string, string>) {
  const child = Bun.spawn([BUN, "src/main.ts"], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? tmpdir(), ...env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  children.push(child);
  return child;
}

/** Runs main.ts to its end, killing it if it outlives `limitMs` (which fails the test). */
async function runToExit(env: Record<string, string>, limitMs: number) {
  const started = Date.now();
  const child = spawnMain(env);
  const timer = setTimeout(() => child.kill("SIGKILL"), limitMs);
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  clearTimeout(timer);
  return { code, stdout, stderr, signal: child.signalCode, elapsedMs: Date.now() - started };
}

describe("start-up refuses bad configuration", () => {
  test("an unreachable DATABASE_URL exits 1 quickly and says so", async () => {
    const run = await runToExit({ DATABASE_URL: DEAD_DATABASE, NATS_URL: DEAD_NATS, JWT_SECRET: SECRET, DATA_DIR: tempDataDir() }, 20_000);
    expect(run.signal).toBeNull();
    expect(run.code).toBe(1);
    expect(run.elapsedMs).toBeLessThan(15_000);
    expect(run.stderr).toContain("cannot reach DATABASE_URL");
  }, 30_000);

  test("PORT=abc exits 1 naming PORT", async () => {
    const run = await runToExit({ PORT: "abc", DATA_DIR: tempDataDir() }, 15_000);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("PORT");
  }, 30_000);

  test("DATABASE_URL alone exits 1 explaining that it goes with NATS_URL", async () => {
    const run = await runToExit({ DATABASE_URL: DEAD_DATABASE, JWT_SECRET: SECRET, DATA_DIR: tempDataDir() }, 15_000);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("DATABASE_URL and NATS_URL go together");
  }, 30_000);
});

describe("a good start", () => {
  test("PORT=0 logs the chosen URL, serves /healthz, and exits 0 on SIGTERM", async () => {
    const child = spawnMain({ PORT: "0", HOST: "127.0.0.1", DATA_DIR: tempDataDir(), LOG_LEVEL: "info" });
    const stderr = new Response(child.stderr).text();

    // pino writes one JSON object per line to stdout; wait for the "serving on" one.
    let logged = "";
    let url: string | undefined;
    const decoder = new TextDecoder();
    const reader = child.stdout.getReader();
    const deadline = Date.now() + 45_000;
    while (!url && Date.now() < deadline) {
      const chunk = await Promise.race([reader.read(), Bun.sleep(deadline - Date.now()).then(() => undefined)]);
      if (!chunk || chunk.done) break;
      logged += decoder.decode(chunk.value, { stream: true });
      for (const line of logged.split("\n")) {
        if (!line.includes("serving on")) continue;
        url = (JSON.parse(line) as { url: string }).url;
      }
    }
    if (!url) throw new Error(`no "serving on" line; stdout: ${logged}\nstderr: ${child.exitCode !== null ? await stderr : "(running)"}`);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(url).not.toEndWith(":0");

    const health = await fetch(`${url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ ok: true, result: { status: "serving" } });

    const signalled = Date.now();
    child.kill("SIGTERM");
    const keepReading = (async () => {
      for (;;) {
        const chunk = await reader.read();
        if (chunk.done) return;
        logged += decoder.decode(chunk.value, { stream: true });
      }
    })();
    // Draining, it still answers for a moment (a request already on its way is not reset),
    // says it is not ready, and tells the client not to reuse the connection.
    let ready = await fetch(`${url}/readyz`);
    for (const until = Date.now() + 2_000; ready.status === 200 && Date.now() < until; await Bun.sleep(10)) ready = await fetch(`${url}/readyz`);
    expect({ status: ready.status, connection: ready.headers.get("connection") }).toEqual({ status: 503, connection: "close" });
    const exit = await Promise.race([child.exited, Bun.sleep(8_000).then(() => "still running" as const)]);
    expect(exit).toBe(0);
    expect(Date.now() - signalled).toBeLessThan(8_000);
    await keepReading;
    expect(logged).toContain('"msg":"stopped"');
  }, 60_000);
});
