// Procfile `web`: the HTTP front alone; `release` has migrated the database.
import { main } from "./server.ts";

await main("web");
