// Procfile `push`: the push worker alone, no HTTP; `release` has migrated the database.
// Run any number: they share one durable JetStream consumer, so each event goes to one.
import { runProcess, startWorkerRole } from "./process.ts";

// Not through src/server.ts: a worker process never loads the HTTP front.
await runProcess("push", (_role, config, logger, overrides) => startWorkerRole("push", config, logger, overrides));
