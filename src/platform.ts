// Opens what every process type shares: configuration, logger, the SQL layer (Postgres or
// PGlite) and, later, the update log, event bus and leases. Nothing above this file
// knows which mode it runs in.
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import type { Config } from "./config.ts";
import type { Db } from "./db/driver.ts";
import { migrate } from "./db/migrate.ts";
import { openPglite } from "./db/pglite.ts";
import { openPostgres } from "./db/postgres.ts";
import type { Logger } from "./logger.ts";
import { loadOrCreateEmbeddedSecret, SecretBox } from "./secrets.ts";
import { ActorSystem } from "./actors/system.ts";
import type { EventBus } from "./bus/bus.ts";
import { memoryBus } from "./bus/memory.ts";
import { natsBus } from "./bus/nats.ts";
import { createDispatcher, createOutboxPublisher, type PublishUpTo, type UpdateSink } from "./outbox/dispatch.ts";
import type { BotActorDeps } from "./actors/bot.ts";
import { WAKE_MAX_CARRIED, wakeSubject, type Wake } from "./core/subjects.ts";
import { startOutboxRelay, type OutboxRelay } from "./outbox/relay.ts";
import { orderedLog } from "./outbox/ordered-log.ts";
import { deleteOutboxRows } from "./db/outbox.ts";
import type { IntakeDeps } from "./actors/intake.ts";
import { botDirectory, type BotDirectory } from "./domain/directory.ts";
import { kvCounterStore, RateLimiter } from "./ratelimit.ts";
import type { UpdateLog } from "./updates/log.ts";
import { openJetStreamLog } from "./updates/jetstream.ts";
import { openSqlLog } from "./updates/sql.ts";
import type { Effects, PendingUpdate } from "./core/events.ts";
import { connectNats, watchNats, type NatsConnection } from "./nats.ts";
import type { Leases } from "./leases/leases.ts";
import { memoryLeases } from "./leases/memory.ts";
import { jetStreamLeases } from "./leases/jetstream.ts";
import type { EventQueue } from "./queue/queue.ts";
import { memoryQueue } from "./queue/memory.ts";
import { jetStreamQueue } from "./queue/jetstream.ts";

/** Why: a dead webhook worker's bots are taken over within this; renewing every third of it is cheap. */
export const LEASE_TTL_MS = 10_000;

export interface Platform {
  /** Unique per opened platform: tells apart plugin instances of different platforms. */
  id: string;
  config: Config;
  logger: Logger;
  db: Db;
  jwtSecret: string;
  secretBox: SecretBox;
  actors: ActorSystem;
  bus: EventBus;
  /** NATS connection in production mode; undefined when embedded. */
  nats: NatsConnection | undefined;
  /** Carries out a committed change's events and updates. */
  dispatch(effects: Effects): Promise<void>;
  /**
   * Makes every committed update of the bot up to `upto` (all when omitted) durable in the
   * log, in update_id order; an idempotent repeat awaits it before it is acknowledged.
   */
  publishOutbox: PublishUpTo;
  /** Bots and channel states public requests read, kept in memory and forgotten on change. */
  bots: BotDirectory;
  /** The per-bot group commit of incoming messages. */
  intake: IntakeDeps;
  /** Whether the database and (in production) NATS answer now, each within a second (/readyz). */
  health(): Promise<{ database: boolean; nats: boolean }>;
  /** The update log get-updates and the webhook worker read. */
  updates: UpdateLog;
  relay: OutboxRelay;
  /** Single-owner work (one webhook deliverer per bot): JetStream KV in production, in-process when embedded. */
  leases: Leases;
  /** Events each handled by one process (push): a durable JetStream consumer in production, the in-process bus when embedded. */
  queue: EventQueue;
  leaseTtlMs: number;
  /** Aborted when the process starts draining: parked polls answer at once. */
  stopping: AbortSignal;
  botDeps: BotActorDeps;
  /** Request counters for public endpoints and logins: shared through NATS in production, per process embedded. */
  limiter: RateLimiter;
  /** First step of a drain: ends parked long polls with an empty result. */
  beginShutdown(): void;
  close(): Promise<void>;
}

export class StartupError extends Error {}

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

export async function openNats(config: Config, name: string): Promise<NatsConnection | undefined> {
  if (!config.natsUrl) return undefined;
  try {
    return await connectNats(config.natsUrl, name);
  } catch (err) {
    throw new StartupError(`cannot reach NATS_URL: ${(err as Error).message}`);
  }
}

export async function openDb(config: Config, inMemory = false): Promise<Db> {
  if (config.databaseUrl) {
    try {
      return await openPostgres(config.databaseUrl);
    } catch (err) {
      throw new StartupError(`cannot reach DATABASE_URL: ${(err as Error).message}`);
    }
  }
  return openPglite(inMemory ? undefined : join(config.dataDir, "pgdata"));
}

export async function openPlatform(config: Config, logger: Logger, options: OpenOptions = {}): Promise<Platform> {
  const db = options.db ?? (await openDb(config, options.inMemory));
  const closeDb = async () => {
    if (!options.db) await db.close();
  };
  if (options.migrate ?? config.mode === "embedded") {
    const applied = await migrate(db);
    if (applied.length) logger.info({ applied }, "migrations applied");
  }
  const jwtSecret = config.jwtSecret ?? loadOrCreateEmbeddedSecret(config.dataDir);
  const nats = await openNats(config, options.processName ?? "botinbox").catch(async (err) => {
    await closeDb();
    throw err;
  });
  const bus = nats ? natsBus(nats) : memoryBus();
  const sqlLog = nats ? undefined : await openSqlLog(db, { now: options.now });
  const rawLog = sqlLog ?? (await openJetStreamLog(nats!, { now: options.now }));
  // Publishing is pipelined: readers hold back behind an update still on its way.
  const updates = orderedLog(rawLog, db);
  const leases = nats ? await jetStreamLeases(nats, { ttlMs: LEASE_TTL_MS }) : memoryLeases({ ttlMs: LEASE_TTL_MS });
  const queue = nats ? jetStreamQueue(nats) : memoryQueue(bus);
  const natsHealth = nats ? watchNats(nats) : undefined;
  const limiter = new RateLimiter(config.rateLimits, options.now, nats && config.rateLimits ? {
    store: await kvCounterStore(nats),
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
  const sink: UpdateSink = {
    async publishUpdates(botId, list) {
      if (list.length === 0) return;
      await updates.appendMany(botId, list.map((u) => ({ update_id: u.updateId, payload: u.payload })));
      await wake(botId, list);
    },
    assertReachable: () => natsHealth?.assertConnected(),
  };
  const bots = botDirectory(db, bus, options.now);
  const actors = new ActorSystem({ onError: (name, err) => logger.error({ err, actor: name }, "actor message failed") });
  const stopping = new AbortController();
  const publishOutbox = createOutboxPublisher(db, sink);
  const dispatch = createDispatcher({ bus, logger, publishUpTo: publishOutbox });
  const relay = startOutboxRelay(db, publishOutbox, logger, options.relayIntervalMs);
  // Rows a crashed process left behind are published before this one serves; if NATS or
  // the database is away right now, the periodic relay does it once they are back.
  await relay.runOnce(0).catch((err) => logger.warn({ err: String(err) }, "outbox relay at start failed; the periodic relay retries"));
  return {
    id: randomUUID(),
    config,
    logger,
    db,
    jwtSecret,
    secretBox: new SecretBox(jwtSecret),
    actors,
    bus,
    nats,
    updates,
    relay,
    leases,
    queue,
    leaseTtlMs: LEASE_TTL_MS,
    stopping: stopping.signal,
    botDeps: {
      log: updates, bus, instanceId: randomUUID(), rateLimits: config.rateLimits,
      sendPerSecond: config.limits.botSendPerSecond, stopping: stopping.signal, now: options.now,
    },
    limiter,
    dispatch,
    publishOutbox,
    bots,
    intake: {
      db,
      publishUpdates: async (botId, list) => {
        sink.assertReachable();
        await sink.publishUpdates(botId, list);
      },
      forgetPublished: (botId, updateIds) => {
        // Left rows are republished by the relay (a repeat the log drops) and hold readers back meanwhile.
        deleteOutboxRows(db, botId, updateIds).catch((err: unknown) => logger.warn({ err: String(err), botId }, "outbox cleanup failed"));
      },
      publishEvents: (effects) => void dispatch(effects),
      // Embedded, the log is a table beside the messages: written in the same transaction.
      logInTransaction: sqlLog && { append: sqlLog.appendWithin, wake },
    },
    async health() {
      const [database, natsUp] = await Promise.all([db.ping(), natsHealth ? natsHealth.ping() : Promise.resolve(true)]);
      return { database, nats: natsUp };
    },
    beginShutdown: () => stopping.abort(),
    async close() {
      stopping.abort();
      relay.stop();
      bots.close();
      await actors.close();
      await limiter.close();
      await leases.close();
      await updates.close();
      await bus.close();
      if (nats) await nats.drain().catch(() => nats.close());
      await closeDb();
    },
  };
}
