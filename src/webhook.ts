// Procfile `webhook`: the webhook worker alone, no HTTP; `release` has migrated the database.
// Run any number: leases split the bots between them.
import { runProcess, startWorkerRole } from "./process.ts";

// Not through src/server.ts: a worker process never loads the HTTP front.
await runProcess("webhook", (_role, config, logger, overrides) => startWorkerRole("webhook", config, logger, overrides));
