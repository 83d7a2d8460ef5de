// Procfile `webhook`: the webhook worker alone, no HTTP; `release` has migrated the database.
// Run any number: leases split the bots between them.
import { main } from "./server.ts";

await main("webhook");
