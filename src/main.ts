// `npm start`: web + webhook + push + mail in one process. On the embedded default (no env) the
// database is PGlite in DATA_DIR; with DATABASE_URL + NATS_URL it joins production.
import { main } from "./server.ts";

await main("all", { migrate: true });
