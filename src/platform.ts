// Opens what every process type shares: configuration, logger, the SQL layer (Postgres or
// PGlite) and, later, the update log, event bus and leases. Nothing above this file
// knows which mode it runs in.
import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { Metrics } from "./metrics.ts";
import { countOutbox, countPendingLogUpdates } from "./db/metrics.ts";
import { join } from "node:path";
import type { Config } from "./config.ts";
import type { Db } from "./db/driver.ts";
import { migrate, pendingMigrations } from "./db/migrate.ts";
import { DataDirLocked, lockDataDir } from "./db/datadir-lock.ts";
import { openPglite } from "./db/pglite.ts";
import type { Logger } from "./logger.ts";
import { loadOrCreateEmbeddedSecret } from "./secrets.ts";
import type { EventBus } from "./bus/bus.ts";
import { memoryBus } from "./bus/memory.ts";
import { createOutboxForgetter } from "./outbox/forget.ts";
import { createDispatcher, createOutboxPublisher, type PublishUpTo, type UpdateSink } from "./outbox/dispatch.ts";
import { natsNames, WAKE_MAX_CARRIED, wakeSubject, type Wake } from "./core/subjects.ts";
import { startOutboxRelay, type OutboxRelay } from "./outbox/relay.ts";
import { orderedLog } from "./outbox/ordered-log.ts";
import { createKeptRepair, repairTailsAfterRestart } from "./outbox/repair.ts";
import { RateLimiter } from "./ratelimit.ts";
import type { UpdateLog } from "./updates/log.ts";
import { openSqlLog, type SqlUpdateLog } from "./updates/sql.ts";
import type { Effects, PendingUpdate } from "./core/events.ts";
import type { NatsConnection } from "./nats.ts";
import type { Leases } from "./leases/leases.ts";
import { memoryLeases } from "./leases/memory.ts";
import type { EventQueue } from "./queue/queue.ts";
import { memoryQueue } from "./queue/memory.ts";
import type { FileStore } from "./files/store.ts";
import { diskFileStore } from "./files/disk.ts";
import { configureFileLinks } from "./file-links.ts";
import { sweepFiles } from "./domain/files.ts";
import { platformMailer, type PlatformMailer } from "./delivery/mail/mailer.ts";

/** Why: a dead webhook worker's bots are taken over within this; renewing every third of it is cheap. */
export const LEASE_TTL_MS = 10_000;

/**
 * The committed-change pipeline the platform runs: events to the bus, updates through the
 * outbox into the log (and the relay that finishes what a crash left behind).
 */
export interface OutboxPipeline {
  /** Carries out a committed change's events and updates. */
  dispatch(effects: Effects): Promise<void>;
  /**
   * Makes every committed update of the bot up to `upto` (all when omitted) durable in the
   * log, in update_id order; an idempotent repeat awaits it before it is acknowledged.
   */
  publishUpTo: PublishUpTo;
  relay: OutboxRelay;
  /** Appends a batch's updates to the log and wakes pollers (throws at once while NATS is away). */
  publishUpdates(botId: string, updates: PendingUpdate[]): Promise<void>;
  /** Removes published rows; what is left is republished by the relay. */
  forgetPublished(botId: string, updateIds: number[]): void;
  /** Embedded: the log is a table beside the messages, written in the same transaction. */
  logInTransaction?: { append: SqlUpdateLog["appendWithin"]; wake(botId: string, updates: PendingUpdate[]): Promise<void> };
}

/** What a process opens: connections, logs and counters. Services are composed from it (services.ts). */
export interface Platform {
  /** Unique per opened platform: tells apart plugin instances of different platforms. */
  id: string;
  config: Config;
  logger: Logger;
  db: Db;
  /** HS256 key of user tokens (and of the stored bot tokens' encryption). */
  jwtSecret: string;
  bus: EventBus;
  /** NATS connection in production mode; undefined when embedded. */
  nats: NatsConnection | undefined;
  /** Whether the database and (in production) NATS answer now, each within a second (/readyz). */
  health(): Promise<{ database: boolean; nats: boolean }>;
  /** The update log get-updates and the webhook worker read. */
  updates: UpdateLog;
  outbox: OutboxPipeline;
  /** Single-owner work (one webhook deliverer per bot): JetStream KV in production, in-process when embedded. */
  leases: Leases;
  /** Events each handled by one process (push): a durable JetStream consumer in production, the in-process bus when embedded. */
  queue: EventQueue;
  leaseTtlMs: number;
  /** The clock tests inject (update expiry, rate limits, the bot directory); undefined = Date.now. */
  now: (() => number) | undefined;
  /** Aborted when the process starts draining: parked polls answer at once. */
  stopping: AbortSignal;
  /** Request counters for public endpoints and logins: shared through NATS in production, per process embedded. */
  limiter: RateLimiter;
  /** Where uploaded files' bytes live: DATA_DIR/files embedded, a JetStream Object Store bucket in production. */
  files: FileStore;
  /** Prometheus counters and gauges of this platform (GET /metrics, METRICS_PORT on workers). */
  metrics: Metrics;
  /** The platform's own mail (password reset, invites) through SMTP_URL; sends nothing without it. */
  mailer: PlatformMailer;
  /** Runs `closer` first when the platform closes (what was composed on top of it). */
  onClose(closer: () => Promise<void> | void): void;
  /** First step of a drain: ends parked long polls with an empty result. */
  beginShutdown(): void;
  close(): Promise<void>;
}

export class StartupError extends Error {}

let scratch: string | undefined;
/** Platforms on an in-memory or borrowed database (tests) share one temporary folder per process, as they share the database. */
const scratchDir = () => (scratch ??= mkdtempSync(join(tmpdir(), "botinbox-files-")));

/** Why: unreferenced files wait a day anyway; an hourly look keeps the sweep's cost negligible. */
const FILE_SWEEP_INTERVAL_MS = 3600_000;

export interface OpenOptions {
  /** Embedded only: keep the database in memory (tests) instead of DATA_DIR. */
  inMemory?: boolean;
  /** Apply migrations (embedded start, tests); production web processes leave it to `release`. */
  migrate?: boolean;
  /** Reuse an already open database (tests share one PGlite per process). */
  db?: Db;
  /** Name of this process in NATS (monitoring); defaults to the role. */
  processName?: string;
  /** Clock for update expiry and rate limits (tests inject one). */
  now?: () => number;
  /** 0 turns the periodic outbox relay off (tests run it by hand). */
  relayIntervalMs?: number;
  /**
   * With NATS, platforms with the same scope share rate-limit counters. Default: the whole
   * deployment, except on a borrowed database (a test's platform), which counts alone so
   * tests do not spend each other's limits.
   */
  limitScope?: string;
}

/** Production's NATS parts; undefined when embedded, which never loads the nats client. */
type NatsParts = typeof import("./platform-nats.ts");

async function openNats(config: Config, name: string, parts: NatsParts | undefined): Promise<NatsConnection | undefined> {
  if (!config.natsUrl || !parts) return undefined;
  try {
    return await parts.connectNats(config.natsUrl, name);
  } catch (err) {
    throw new StartupError(`cannot reach NATS_URL: ${(err as Error).message}`);
  }
}

export async function openDb(config: Config, inMemory = false): Promise<Db> {
  if (config.databaseUrl) {
    try {
      // Loaded here: an embedded process never needs the PostgreSQL client (~2 MB resident).
      const { openPostgres } = await import("./db/postgres.ts");
      return await openPostgres(config.databaseUrl);
    } catch (err) {
      throw new StartupError(`cannot reach DATABASE_URL: ${(err as Error).message}`);
    }
  }
  if (inMemory) return openPglite(undefined);
  mkdirSync(config.dataDir, { recursive: true });
  let unlock: () => void;
  try {
    unlock = lockDataDir(config.dataDir);
  } catch (err) {
    if (err instanceof DataDirLocked) throw new StartupError(err.message);
    throw err;
  }
  const db = await openPglite(join(config.dataDir, "pgdata")).catch((err) => {
    unlock();
    throw new StartupError(`cannot open the embedded database in ${join(config.dataDir, "pgdata")}: ${(err as Error).message}`);
  });
  return { ...db, async close() {
    await db.close();
    unlock();
  } };
}

/**
 * A fresh embedded data directory is created and migrated by `release` in a child process;
 * this process then opens it as a restart would. Why: initdb and ~270 migrations leave PGlite's
 * WASM heap and JIT code ~25 MB larger for the life of the process that ran them (idle RSS
 * 187 vs 162 MB, docs/decisions.md); a child's memory goes with it. Costs one more bun and
 * PGlite start (~1-2 s) on a first start only.
 */
async function createDataDirApart(dataDir: string): Promise<void> {
  if (existsSync(join(dataDir, "pgdata", "PG_VERSION"))) return;
  const child = Bun.spawn([process.execPath, join(import.meta.dir, "release.ts")], {
    // Empty counts as unset: the child is embedded whatever the parent's environment names.
    env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: "", NATS_URL: "" },
    stdout: "inherit",
    stderr: "pipe",
  });
  const [code, stderr] = await Promise.all([child.exited, new Response(child.stderr).text()]);
  if (code === 0) return;
  const sentence = /release failed: (.*)/.exec(stderr)?.[1] ?? `creating the embedded database in ${join(dataDir, "pgdata")} failed (exit ${code}): ${stderr.trim().split("\n").at(-1) ?? ""}`;
  throw new StartupError(sentence);
}

/** A process that does not migrate (production `web`, the workers) refuses an old schema with one sentence. */
async function assertMigrated(db: Db): Promise<void> {
  const pending = await pendingMigrations(db);
  if (pending.length) {
    throw new StartupError(`the database is missing ${pending.length} migration(s) (${pending[0]}…): run release (\`bun src/release.ts\`, the Procfile's release entry) first`);
  }
}

/** Every committed change passes dispatch once: its incoming-message events are the accepted messages. */
function countAccepted(metrics: Metrics, dispatch: (effects: Effects) => Promise<void>) {
  return (effects: Effects) => {
    for (const event of effects.events) if (event.kind === "message_created" && event.message?.direction === "in") metrics.messagesAccepted.inc();
    return dispatch(effects);
  };
}

export async function openPlatform(config: Config, logger: Logger, options: OpenOptions = {}): Promise<Platform> {
  const migrates = options.migrate ?? config.mode === "embedded";
  if (migrates && !config.databaseUrl && !options.db && !options.inMemory) await createDataDirApart(config.dataDir);
  const db = options.db ?? (await openDb(config, options.inMemory));
  const closeDb = async () => {
    if (!options.db) await db.close();
  };
  if (migrates) {
    const applied = await migrate(db);
    if (applied.length) logger.info({ applied }, "migrations applied");
    // Why: an upgrade's migrations leave what they touched in PGlite's WASM heap, which never
    // shrinks; a fresh instance idles nearer a restart (docs/decisions.md). (A first start's
    // migrations ran in createDataDirApart's child.)
    if (applied.length && !options.db) await db.reopen?.();
  }
  const jwtSecret = config.jwtSecret ?? loadOrCreateEmbeddedSecret(config.dataDir);
  const np = config.natsUrl ? await import("./platform-nats.ts") : undefined;
  const nats = await openNats(config, options.processName ?? "botinbox", np).catch(async (err) => {
    await closeDb();
    throw err;
  });
  if (!migrates && !options.db) {
    await assertMigrated(db).catch(async (err) => {
      await nats?.close();
      await closeDb();
      throw err;
    });
  }
  const names = natsNames(config.natsPrefix);
  const replicas = config.natsReplicas;
  const bus = nats ? np!.natsBus(nats, { names }) : memoryBus();
  const sqlLog = nats ? undefined : await openSqlLog(db, { now: options.now });
  const rawLog = sqlLog ?? (await np!.onceJetStreamSettles(() => np!.openJetStreamLog(nats!, {
    now: options.now, names, replicas, onPurge: (purge) => logger.debug(purge, "purged a bot's confirmed updates"),
  }), logger, "update log"));
  // Updates JetStream lost after acknowledging them come back from the kept outbox (repair.ts).
  const repair = nats ? createKeptRepair(db, (botId, list) => appendAndWake(botId, list, true), logger) : undefined;
  /** At start and after a reconnect: a NATS server other than the one last looked at may have lost a tail. */
  const lookForLostTails = () => {
    if (nats && repair) void repairTailsAfterRestart(db, () => nats.info?.server_id, () => repair.tails(rawLog), logger, stopping.signal);
  };
  // Publishing is pipelined: readers hold back behind an update still on its way.
  const updates = orderedLog(rawLog, db, (botId, updateIds) =>
    logger.info({ botId, updateIds }, "a read passes over update ids neither in the log nor in the outbox (erased, expired or lost)"),
  repair && ((botId, missing) => repair.gap(botId, missing)));
  const leases = nats
    ? await np!.onceJetStreamSettles(() => np!.jetStreamLeases(nats, { ttlMs: LEASE_TTL_MS, bucket: names.leasesBucket, replicas }), logger, "leases")
    : memoryLeases({ ttlMs: LEASE_TTL_MS });
  const queue = nats ? np!.jetStreamQueue(nats, (step) => np!.onceJetStreamSettles(step, logger, "push events stream"), names, replicas) : memoryQueue(bus);
  const natsHealth = nats ? np!.watchNats(nats, logger, () => {
    // The server may be back on an older store (a power cut): what this process indexed may be
    // wrong now, and a lost tail shows no gap to any reader.
    rawLog.reindex?.();
    lookForLostTails();
  }) : undefined;
  configureFileLinks(jwtSecret, config.publicUrl);
  const files = nats
    ? await np!.onceJetStreamSettles(() => np!.natsFileStore(nats, names.filesBucket, replicas), logger, "file store")
    : await diskFileStore(join(options.inMemory || options.db ? scratchDir() : config.dataDir, "files"));
  const sweep = setInterval(() => {
    sweepFiles({ db, files }).catch((err: unknown) => logger.warn({ err: String(err) }, "file sweep failed; the next one retries"));
  }, FILE_SWEEP_INTERVAL_MS);
  sweep.unref();
  const metrics = new Metrics({ processMetrics: !options.db });
  metrics.watch({
    outboxSize: () => countOutbox(db),
    pendingUpdates: nats
      ? async () => (await (await nats.jetstreamManager()).streams.info(names.updatesStream)).state.messages
      : () => countPendingLogUpdates(db),
  });
  const limiter = new RateLimiter(config.rateLimits, options.now, nats && config.rateLimits ? {
    store: await np!.onceJetStreamSettles(() => np!.kvCounterStore(nats, names.rateLimitBucket, replicas), logger, "rate limits"),
    scope: options.limitScope ?? (options.db ? randomUUID() : "deployment"),
    onError: (err) => logger.warn({ err: String(err) }, "shared rate limits unreachable; counting in this process meanwhile"),
  } : undefined);
  /** Wakes parked polls and webhook workers once updates are durable. */
  const wake = async (botId: string, list: PendingUpdate[]) => {
    const date = Math.floor(Date.now() / 1000);
    const message: Wake = { update_id: list[list.length - 1]!.updateId };
    // Parked polls answer from the wake-up itself, without reading the log again.
    if (list.length <= WAKE_MAX_CARRIED) message.updates = list.map((u) => ({ update_id: u.updateId, payload: u.payload, date }));
    await bus.publish(wakeSubject(botId), message);
  };
  /** `republished`: the log lost these after acknowledging them (repair.ts). */
  const appendAndWake = async (botId: string, list: PendingUpdate[], republished: boolean) => {
    await updates.appendMany(botId, list.map((u) => ({ update_id: u.updateId, payload: u.payload, json: u.json, republished })));
    await wake(botId, list);
  };
  const sink: UpdateSink = {
    async publishUpdates(botId, list) {
      if (list.length > 0) await appendAndWake(botId, list, false);
    },
    assertReachable: () => natsHealth?.assertConnected(),
  };
  const stopping = new AbortController();
  const publishUpTo = createOutboxPublisher(db, sink);
  const dispatch = countAccepted(metrics, createDispatcher({ bus, logger, publishUpTo }));
  const relay = startOutboxRelay(db, publishUpTo, logger, options.relayIntervalMs);
  const forgetter = createOutboxForgetter(db, logger);
  // Rows a crashed process left behind are published before this one serves; if NATS or
  // the database is away right now, the periodic relay does it once they are back.
  await relay.runOnce(0).catch((err) => logger.warn({ err: String(err) }, "outbox relay at start failed; the periodic relay retries"));
  // The whole machine may have lost power: NATS came back without its last appends, and no
  // reconnect will say so to a process that starts now.
  lookForLostTails();
  const closers: Array<() => Promise<void> | void> = [];
  return {
    id: randomUUID(),
    config,
    logger,
    db,
    jwtSecret,
    bus,
    nats,
    updates,
    leases,
    queue,
    leaseTtlMs: LEASE_TTL_MS,
    now: options.now,
    stopping: stopping.signal,
    limiter,
    files,
    metrics,
    mailer: platformMailer(config, logger),
    outbox: {
      dispatch,
      publishUpTo,
      relay,
      publishUpdates: async (botId, list) => {
        sink.assertReachable();
        await sink.publishUpdates(botId, list);
      },
      // Left rows are republished by the relay (a repeat the log drops); deletes of many batches go as one.
      forgetPublished: forgetter.forget,
      logInTransaction: sqlLog && { append: sqlLog.appendWithin, wake },
    },
    onClose: (closer) => void closers.push(closer),
    async health() {
      const [database, natsUp] = await Promise.all([db.ping(), natsHealth ? natsHealth.ping() : Promise.resolve(true)]);
      return { database, nats: natsUp };
    },
    beginShutdown: () => stopping.abort(),
    async close() {
      stopping.abort();
      for (const closer of closers.splice(0).reverse()) await closer();
      clearInterval(sweep);
      relay.stop();
      // After the actors (closed above), so their last batches' rows are deleted too.
      await forgetter.close();
      await limiter.close();
      await leases.close();
      await updates.close();
      await bus.close();
      if (nats) await nats.drain().catch(() => nats.close());
      await closeDb();
    },
  };
}
