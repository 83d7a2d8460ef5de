// `npm run backup -- <file>`: a consistent backup of this deployment in one file (README
// "Backups"). Embedded: while the server runs (through its control socket) or stopped.
// Production: pg_dump plus the update log's pending updates and the file store.
import { ConfigError, loadConfig } from "./config.ts";
import { BackupError } from "./backup/archive.ts";
import { backupEmbedded } from "./backup/embedded.ts";
import { backupProduction } from "./backup/production.ts";

const target = process.argv[2];
if (!target || target.startsWith("-")) {
  console.error("usage: npm run backup -- <file>   (writes a .tar.gz backup of this deployment)");
  process.exit(2);
}
try {
  const config = loadConfig();
  const started = Date.now();
  const said = config.mode === "embedded" ? await backupEmbedded(config.dataDir, target) : await backupProduction(config, target);
  console.log(`${said} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  process.exit(0);
} catch (err) {
  if (err instanceof ConfigError || err instanceof BackupError) {
    console.error(`backup failed: ${err.message}`);
    process.exit(1);
  }
  throw err;
}
