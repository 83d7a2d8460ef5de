// The embedded process keeps what it does not use out of memory: the nats client, the mail
// libraries and web-push load only when NATS_URL, a mail channel or a push needs them
// (docs/decisions.md, issue 23). Each loaded library stays resident (imapflow + mailparser +
// nodemailer ≈ 15 MB, nats ≈ 5 MB of a ~145 MB idle process), so an eager import is a
// regression a user sees in RSS. Runs the real entry in its own process with no environment,
// so it checks the embedded default in either test mode.
import { afterAll, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A first start runs initdb and every migration in PGlite: tens of seconds on a busy 2-core machine. */
const START_MS = 120_000;
setDefaultTimeout(2 * START_MS);

const ROOT = join(import.meta.dir, "../..");
const dataDir = mkdtempSync(join(tmpdir(), "botinbox-footprint-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/**
 * Idle RSS 2 s after ready, as bench/ingest.ts reads it: the issue's ≤ 150 MB. Single readings
 * swing with what JSC is compiling at that moment (PGlite's functions reach its top tier at
 * start-up), hence the median of five. Start-up's freed memory is handed back once the process
 * is up (src/process.ts releaseStartupMemory): single readings 135–151 MB, the median of five
 * 137–142, where it read 154–160 before on an idle machine and failed a 155 MB bound in CI.
 */
const IDLE_RSS_BOUND_MB = 150;
const RESTARTS = 4;

/** Needed only with NATS_URL, a mail channel, an upload or a push: never at an idle start. */
const LAZY = ["nats", "postgres", "imapflow", "mailparser", "nodemailer", "email-reply-parser", "file-type", "image-size"];

async function startAndReport(): Promise<{ loaded: string[]; rssMb: number }> {
  const proc = Bun.spawn([process.execPath, join(ROOT, "test/support/embedded-footprint.ts")], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp", DATA_DIR: dataDir, PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "warn" },
    stdout: "pipe",
    stderr: "pipe",
  });
  const timer = setTimeout(() => proc.kill("SIGKILL"), START_MS);
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  clearTimeout(timer);
  const line = out.split("\n").find((l) => l.startsWith("FOOTPRINT "));
  if (code !== 0 || !line) throw new Error(`the embedded process exited with ${code} and no report:\n${out}\n${err}`);
  return JSON.parse(line.slice("FOOTPRINT ".length));
}

test("an idle embedded process has not loaded the nats client, the mail libraries or web-push, and stays within 150 MB (median of five starts)", async () => {
  const first = await startAndReport();
  // The first start makes the VAPID key pair, which is web-push's one use at start-up.
  expect(first.loaded.filter((name) => LAZY.includes(name))).toEqual([]);
  const restart = await startAndReport();
  expect(restart.loaded.filter((name) => [...LAZY, "web-push"].includes(name))).toEqual([]);
  const readings = [first.rssMb, restart.rssMb];
  while (readings.length < RESTARTS + 1) readings.push((await startAndReport()).rssMb);
  console.log(`embedded idle RSS: ${first.rssMb} MB after a first start, ${readings.slice(1).join(", ")} MB after restarts`);
  expect([...readings].sort((a, b) => a - b)[Math.floor(readings.length / 2)]!).toBeLessThanOrEqual(IDLE_RSS_BOUND_MB);
});
