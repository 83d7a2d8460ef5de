// `npm run restore -- <file>`: brings a backup (npm run backup) back into an EMPTY deployment
// (README "Backups"): embedded, a DATA_DIR without a database; production, a new database
// and a NATS_PREFIX whose update log and file store are empty. Then start the processes.
import { ConfigError, loadConfig } from "./config.ts";
import { BackupError } from "./backup/archive.ts";
import { restoreEmbedded } from "./backup/embedded.ts";
import { restoreProduction } from "./backup/production.ts";

const source = process.argv[2];
if (!source || source.startsWith("-")) {
  console.error("usage: npm run restore -- <file>   (restores a backup into an empty DATA_DIR, or an empty database and NATS_PREFIX)");
  process.exit(2);
}
try {
  const config = loadConfig();
  const started = Date.now();
  const said = config.mode === "embedded" ? await restoreEmbedded(config.dataDir, source) : await restoreProduction(config, source);
  console.log(`${said} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  process.exit(0);
} catch (err) {
  if (err instanceof ConfigError || err instanceof BackupError) {
    console.error(`restore failed: ${err.message}`);
    process.exit(1);
  }
  throw err;
}
