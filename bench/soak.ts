// The soak (README "Soak"): a production deployment (one `web`, one `webhook` process) under
// steady, bounded, mixed traffic — ingest, a get-updates poller, webhook delivery, inbox
// reads, widget streams — for SOAK_MINUTES (default 30), sampling each process's RSS and open
// file descriptors and every table that grows with traffic. Prints one line per sample and a
// JSON summary; test/chaos/soak.test.ts runs it for 2 minutes and asserts on the result.
//
// By hand: `SOAK_CI_SECONDS=1800 bun test --timeout 2000000 test/chaos/soak.test.ts` (private
// PostgreSQL and NATS, warm-up 5 minutes), or `bun bench/soak.ts` against an empty database.
import { readdirSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import postgres from "postgres";
import { connect } from "nats";
import { procfileEntry } from "./procfile.ts";

const ROOT = resolve(import.meta.dir, "..");

export interface SoakOptions {
  databaseUrl: string;
  natsUrl: string;
  natsPrefix: string;
  durationMs: number;
  sampleEveryMs: number;
  /** Incoming messages per second in all (bounded: the machine is shared). */
  messagesPerSecond?: number;
  /**
   * A full collection in each process this often (bench/gc-probe.ts): RSS then measures what is
   * kept, not the collector's sawtooth. Off by default: a by-hand run sees the process as deployed.
   */
  fullCollectionEveryMs?: number;
  log?: (line: string) => void;
}

/** Tables that grow with traffic, each with the rule that keeps it bounded (README "Retention"). */
export const HOUSEKEEPING_TABLES: Record<string, string> = {
  outbox: "deleted once its update is in the log",
  webhook_delivered: "deleted once the bot's confirmed watermark passes it",
  update_log: "embedded log: confirmed updates deleted, unconfirmed expire after 24 h",
  callback_queries: "button presses older than their answer window deleted",
  delivery_attempts: "attempts older than 7 days deleted",
  revoked_tokens: "deleted when the token would have expired",
};
/** Data, not housekeeping: grows with traffic by design (retention per bot deletes it). */
const DATA_TABLES = ["messages", "conversations", "contacts"];

export interface Sample {
  at_s: number;
  rss_mb: Record<string, number>;
  fds: Record<string, number>;
  rows: Record<string, number>;
  stream_messages: number;
  sent: number;
  delivered: number;
}

export interface SoakResult {
  samples: Sample[];
  sent: number;
  failed: number;
  polled: number;
  hooked: number;
  inboxReads: number;
  streams: number;
}

function procStatus(pid: number): { rss: number; fds: number } {
  try {
    const rssKb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0);
    return { rss: Math.round(rssKb / 1024), fds: readdirSync(`/proc/${pid}/fd`).length };
  } catch {
    return { rss: 0, fds: 0 };
  }
}

async function waitHttp(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(url)).status === 200) return;
    } catch {}
    await Bun.sleep(200);
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms`);
}

export async function soak(options: SoakOptions): Promise<SoakResult> {
  const log = options.log ?? console.log;
  const rate = options.messagesPerSecond ?? 20;
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const base = `http://127.0.0.1:${port}`;
  const env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/root", DATABASE_URL: options.databaseUrl, NATS_URL: options.natsUrl,
    NATS_PREFIX: options.natsPrefix, JWT_SECRET: "soak-jwt-secret-0123456789-abcdefghijklmnop", RATE_LIMITS: "off", ALLOW_PRIVATE_WEBHOOKS: "1", LOG_LEVEL: "warn",
  };
  const [release, web, webhook] = [procfileEntry("release"), procfileEntry("web"), procfileEntry("webhook")];
  const probe = options.fullCollectionEveryMs ? ["--preload", resolve(import.meta.dir, "gc-probe.ts")] : [];
  const probed = (argv: string[]) => [argv[0]!, ...probe, ...argv.slice(1)];
  const probeEnv = options.fullCollectionEveryMs ? { SOAK_FULL_GC_MS: String(options.fullCollectionEveryMs) } : {};
  const released = Bun.spawn(release.argv, { cwd: ROOT, env: { ...env, ...release.env }, stdout: "ignore", stderr: "inherit" });
  if ((await released.exited) !== 0) throw new Error("release failed");
  const procs = {
    web: Bun.spawn(probed(web.argv), { cwd: ROOT, env: { ...env, ...web.env, ...probeEnv, PORT: String(port), HOST: "127.0.0.1" }, stdout: "ignore", stderr: "inherit" }),
    webhook: Bun.spawn(probed(webhook.argv), { cwd: ROOT, env: { ...env, ...webhook.env, ...probeEnv }, stdout: "ignore", stderr: "inherit" }),
  };
  const receiver = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: async (req) => {
    await req.arrayBuffer();
    result.hooked++;
    return new Response("ok");
  } });
  const sql = postgres(options.databaseUrl, { max: 2, onnotice: () => {} });
  const nc = await connect({ servers: options.natsUrl });
  const jsm = await nc.jetstreamManager();
  const result: SoakResult = { samples: [], sent: 0, failed: 0, polled: 0, hooked: 0, inboxReads: 0, streams: 0 };
  let running = true;
  try {
    await waitHttp(`${base}/readyz`, 60_000);
    const call = async (method: string, path: string, body?: unknown, token?: string) => {
      const res = await fetch(base + path, {
        method, body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(60_000),
        headers: { ...(body === undefined ? {} : { "content-type": "application/json" }), ...(token ? { authorization: `Bearer ${token}` } : {}) },
      });
      return { status: res.status, body: (await res.json().catch(() => ({}))) as any };
    };
    const user = await call("POST", "/api/auth/register", { email: `soak-${Date.now()}@example.com`, password: "soak-password-1" });
    const owner = user.body.result.token as string;
    const polled = (await call("POST", "/api/bots", { name: "Soak poller" }, owner)).body.result;
    const hooked = (await call("POST", "/api/bots", { name: "Soak webhook" }, owner)).body.result;
    await call("POST", `/api/bots/${hooked.id}/set-webhook`, { url: `http://127.0.0.1:${receiver.port}/hook` }, hooked.token);
    const startedAt = Date.now();
    const until = startedAt + options.durationMs;

    const loops: Promise<void>[] = [];
    // Ingest: steady rate, 4 of 5 to the polled bot, over 200 chats (they come back, as visitors do).
    loops.push((async () => {
      for (let i = 0; running && Date.now() < until; i++) {
        const bot = i % 5 === 4 ? hooked : polled;
        const at = Date.now();
        const res = await call("POST", "/api/messages", { bot_id: bot.id, chat_id: `soak-${i % 200}`, channel: "web", text: `soak message ${i}` }).catch(() => ({ status: 0 }));
        if (res.status === 200) result.sent++;
        else result.failed++;
        await Bun.sleep(Math.max(0, 1000 / rate - (Date.now() - at)));
      }
    })());
    // A bot backend long-polling get-updates, confirming as it goes.
    loops.push((async () => {
      let offset = 0;
      while (running && Date.now() < until) {
        const res = await call("GET", `/api/bots/${polled.id}/get-updates?offset=${offset}&timeout=5&limit=100`, undefined, polled.token).catch(() => undefined);
        for (const u of (res?.body?.result ?? []) as any[]) {
          offset = Math.max(offset, u.update_id + 1);
          result.polled++;
        }
      }
    })());
    // An operator's inbox list, twice a second.
    loops.push((async () => {
      while (running && Date.now() < until) {
        await call("GET", "/api/inbox?limit=20", undefined, owner).catch(() => undefined);
        result.inboxReads++;
        await Bun.sleep(500);
      }
    })());
    // Widget streams: 5 visitors' pages, each reopened every 20 s.
    for (let v = 0; v < 5; v++) {
      loops.push((async () => {
        while (running && Date.now() < until) {
          const ctl = new AbortController();
          const timer = setTimeout(() => ctl.abort(), 20_000);
          try {
            const res = await fetch(`${base}/api/messages/stream?bot_id=${polled.id}&chat_id=soak-${v}`, { signal: ctl.signal });
            result.streams++;
            await res.body?.pipeTo(new WritableStream());
          } catch {}
          clearTimeout(timer);
        }
      })());
    }
    // Samples.
    loops.push((async () => {
      while (running) {
        const sample: Sample = { at_s: Math.round((Date.now() - startedAt) / 1000), rss_mb: {}, fds: {}, rows: {}, stream_messages: 0, sent: result.sent, delivered: result.polled + result.hooked };
        for (const [name, p] of Object.entries(procs)) {
          const s = procStatus(p.pid);
          sample.rss_mb[name] = s.rss;
          sample.fds[name] = s.fds;
        }
        for (const table of [...Object.keys(HOUSEKEEPING_TABLES), ...DATA_TABLES]) {
          sample.rows[table] = Number((await sql.unsafe(`select count(*)::int as n from ${table}`))[0]!.n);
        }
        sample.stream_messages = (await jsm.streams.info(`${options.natsPrefix}_UPDATES`).catch(() => undefined))?.state.messages ?? -1;
        result.samples.push(sample);
        log(`${sample.at_s}s rss ${JSON.stringify(sample.rss_mb)} fds ${JSON.stringify(sample.fds)} rows ${JSON.stringify(sample.rows)} stream ${sample.stream_messages} sent ${sample.sent} delivered ${sample.delivered}`);
        if (Date.now() >= until) break;
        await Bun.sleep(Math.min(options.sampleEveryMs, Math.max(0, until - Date.now())));
      }
    })());
    await Promise.all(loops);
    return result;
  } finally {
    running = false;
    for (const p of Object.values(procs)) p.kill("SIGTERM");
    await Promise.all(Object.values(procs).map((p) => Promise.race([p.exited, Bun.sleep(15_000)])));
    for (const p of Object.values(procs)) p.kill("SIGKILL");
    receiver.stop(true);
    await nc.close();
    await sql.end();
  }
}

/** Median of the numbers: one sample's GC spike does not decide a verdict. */
export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

/**
 * RSS growth of each process after `warmupMs`: the median of the last third of the samples
 * against the median of the first third. RSS follows the collector's sawtooth (a 30-minute
 * run swung 127–160 MB with no trend), so single samples or three-sample medians measure
 * where the saw happened to be, not a leak; a third of the run is many teeth.
 */
export function rssGrowth(samples: Sample[], warmupMs: number): Record<string, number> {
  const after = samples.filter((s) => s.at_s * 1000 >= warmupMs);
  const third = Math.max(1, Math.floor(after.length / 3));
  const out: Record<string, number> = {};
  for (const name of Object.keys(samples[0]?.rss_mb ?? {})) {
    const first = median(after.slice(0, third).map((s) => s.rss_mb[name]!));
    const last = median(after.slice(-third).map((s) => s.rss_mb[name]!));
    out[name] = first ? (last - first) / first : 0;
  }
  return out;
}

if (import.meta.main) {
  // An empty database and NATS_PREFIX of its own: the soak counts every row of its tables.
  const minutes = Number(process.env.SOAK_MINUTES ?? 30);
  if (!process.env.DATABASE_URL || !process.env.NATS_URL) {
    console.error("usage: DATABASE_URL=<an empty database> NATS_URL=… NATS_PREFIX=soak SOAK_MINUTES=30 bun bench/soak.ts");
    process.exit(2);
  }
  const result = await soak({
    databaseUrl: process.env.DATABASE_URL, natsUrl: process.env.NATS_URL, natsPrefix: process.env.NATS_PREFIX ?? "soak",
    durationMs: minutes * 60_000, sampleEveryMs: 60_000, messagesPerSecond: Number(process.env.SOAK_RATE ?? 20),
  });
  const warmup = Math.min(5 * 60_000, (minutes * 60_000) / 2);
  console.log(JSON.stringify({ minutes, sent: result.sent, failed: result.failed, polled: result.polled, hooked: result.hooked, inboxReads: result.inboxReads, streams: result.streams, rssGrowthAfterWarmup: rssGrowth(result.samples, warmup), last: result.samples.at(-1) }, null, 2));
}
