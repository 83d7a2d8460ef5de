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
import { ActorSystem } from "../actors/runtime.ts";
import type { EventBus } from "./bus/bus.ts";
import { memoryBus } from "./bus/memory.ts";
import { natsBus } from "./bus/nats.ts";
import { createDispatcher } from "./dispatch.ts";
import type { Effects } from "./effects.ts";
import { connectNats, type NatsConnection } from "./nats.ts";

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
  if (options.migrate ?? config.mode === "embedded") {
    const applied = await migrate(db);
    if (applied.length) logger.info({ applied }, "migrations applied");
  }
  const jwtSecret = config.jwtSecret ?? loadOrCreateEmbeddedSecret(config.dataDir);
  const nats = await openNats(config, options.processName ?? "botinbox").catch(async (err) => {
    if (!options.db) await db.close();
    throw err;
  });
  const bus = nats ? natsBus(nats) : memoryBus();
  const actors = new ActorSystem({ onError: (name, err) => logger.error({ err, actor: name }, "actor message failed") });
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
    dispatch: createDispatcher({ db, bus, logger }),
    async close() {
      await actors.close();
      await bus.close();
      if (nats) await nats.drain().catch(() => nats.close());
      if (!options.db) await db.close();
    },
  };
}
