// Chaos harness entry point: scenario gating, the product's own processes (release, web,
// webhook, the embedded all-in-one) and the checks that need them. The pieces live in
// process.ts (spawning, cleanup), services.ts (private PostgreSQL and NATS), traffic.ts
// (senders, get-updates reader, verdict) and receiver.ts (the flaky webhook receiver).
import { test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { freePort, onCleanup, Proc, probe, ROOT, waitFor } from "./process.ts";
import { HAVE_SERVICES, NATS_SERVER, PG_BIN } from "./services.ts";
import type { Attempt } from "./traffic.ts";

export * from "./process.ts";
export * from "./services.ts";
export * from "./traffic.ts";
export * from "./receiver.ts";

export const BUN = join(ROOT, "node_modules/.bin/bun");
/** Same for every process: user tokens and encrypted bot tokens must survive a restart. */
const JWT_SECRET = "chaos-suite-jwt-secret-0123456789-abcdefghij";


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
export function productEnv(extra: Record<string, string>): Record<string, string> {
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

export async function migrate(scenario: string, services: Services, cwd: string = ROOT): Promise<void> {
  const proc = new Proc(`${scenario}.release`, [BUN, "src/release.ts"], productEnv({ DATABASE_URL: services.databaseUrl, NATS_URL: services.natsUrl }), cwd);
  proc.start();
  const code = await proc.child!.exited;
  if (code !== 0) throw new Error(`release (migrate) exited with ${code}\n${proc.tail()}`);
}

/** An HTTP-serving process (`web`, or the embedded all-in-one) on a fixed port, so a restart keeps its URL. */
export class WebProc extends Proc {
  readonly port: number;
  readonly url: string;

  constructor(name: string, entry: string, env: Record<string, string>, cwd: string = ROOT) {
    const port = freePort();
    super(name, [BUN, entry], productEnv({ ...env, PORT: String(port), HOST: "127.0.0.1" }), cwd);
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

export function webProcess(name: string, services: Services, extraEnv: Record<string, string> = {}, cwd: string = ROOT): WebProc {
  return new WebProc(name, "src/web.ts", { DATABASE_URL: services.databaseUrl, NATS_URL: services.natsUrl, ...extraEnv }, cwd);
}

export function embeddedProcess(name: string, dataDir: string): WebProc {
  return new WebProc(name, "src/main.ts", { DATA_DIR: dataDir });
}

export class WebhookProc extends Proc {
  constructor(name: string, services: Services, extraEnv: Record<string, string> = {}) {
    super(name, [BUN, "src/webhook.ts"], productEnv({ DATABASE_URL: services.databaseUrl, NATS_URL: services.natsUrl, ...extraEnv }));
  }

  /** The worker has no HTTP front; its start line ("delivering webhooks…") says it serves. */
  async up(timeoutMs = 30_000): Promise<this> {
    this.start();
    await waitFor(`${this.name} start line`, () => readFileSync(this.log, "utf8").includes("delivering webhooks"), timeoutMs, () => this.tail(), () => this.alive);
    return this;
  }
}

/** The mail worker (`bun src/mail.ts`): reads mailboxes and sends mail, no HTTP front. */
export class MailProc extends Proc {
  constructor(name: string, services: Services, extraEnv: Record<string, string> = {}) {
    super(name, [BUN, "src/mail.ts"], productEnv({ DATABASE_URL: services.databaseUrl, NATS_URL: services.natsUrl, ...extraEnv }));
  }

  async up(timeoutMs = 30_000): Promise<this> {
    this.start();
    await waitFor(`${this.name} start line`, () => readFileSync(this.log, "utf8").includes("e-mail channel's mail"), timeoutMs, () => this.tail(), () => this.alive);
    return this;
  }
}

/** Status of one GET, 0 when no answer came within the timeout. */
export class ReadyWatch {
  readonly samples: Array<{ at: number; status: number }> = [];
  private running = true;
  private readonly done: Promise<void>;

  constructor(url: string, everyMs = 250) {
    onCleanup(() => void (this.running = false));
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
