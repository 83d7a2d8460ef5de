// Opens what every process type shares: configuration, logger, the SQL layer (Postgres or
// PGlite) and, later, the update log, event bus and leases. Nothing above this file
// knows which mode it runs in.
import { join } from "node:path";
import type { Config } from "./config.ts";
import type { Db } from "./db/driver.ts";
import { migrate } from "./db/migrate.ts";
import { openPglite } from "./db/pglite.ts";
import { openPostgres } from "./db/postgres.ts";
import type { Logger } from "./logger.ts";
import { loadOrCreateEmbeddedSecret, SecretBox } from "./secrets.ts";

export interface Platform {
  config: Config;
  logger: Logger;
  db: Db;
  jwtSecret: string;
  secretBox: SecretBox;
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
  return {
    config,
    logger,
    db,
    jwtSecret,
    secretBox: new SecretBox(jwtSecret),
    async close() {
      if (!options.db) await db.close();
    },
  };
}
