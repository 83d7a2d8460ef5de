// Procfile `mail`: the mail worker alone, no HTTP; `release` has migrated the database.
// Run any number: leases give each mailbox exactly one reader.
import { runProcess, startWorkerRole } from "./process.ts";

await runProcess("mail", (_role, config, logger, overrides) => startWorkerRole("mail", config, logger, overrides));
