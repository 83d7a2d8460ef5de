// Procfile `push`: the push worker alone, no HTTP; `release` has migrated the database.
// Run any number: they share one durable JetStream consumer, so each event goes to one.
import { main } from "./server.ts";

await main("push");
