// Procfile `release`: applies pending SQL migrations, then exits.
import { ConfigError, loadConfig } from "./config.ts";
import { migrate } from "./db/migrate.ts";
import { createLogger } from "./logger.ts";
import { openDb, StartupError } from "./platform.ts";

try {
  const config = loadConfig();
  const logger = createLogger(config);
  const db = await openDb(config);
  const applied = await migrate(db);
  logger.info({ applied }, applied.length ? "migrations applied" : "database is up to date");
  await db.close();
} catch (err) {
  if (err instanceof ConfigError || err instanceof StartupError) {
    console.error(`release failed: ${err.message}`);
    process.exit(1);
  }
  throw err;
}
