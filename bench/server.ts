// The product as the in-process benchmarks run it: the mode the env names (DATABASE_URL +
// NATS_URL → Postgres + JetStream; neither → embedded PGlite), migrated, serving real HTTP on
// a free loopback port, rate limits off and logs silent; and a JSON request helper for it.
import type { Config } from "../src/config.ts";
import { loadConfig } from "../src/config.ts";
import { migrate } from "../src/db/migrate.ts";
import { createLogger } from "../src/logger.ts";
import { openDb } from "../src/platform.ts";
import { startServer } from "../src/server.ts";

/** Matches the product's rule (src/config.ts): a JWT secret has at least 32 characters. */
const BENCH_JWT_SECRET = "bench-secret-bench-secret-bench-secret!";

/** `env`: settings a bench needs on top of the environment's (ALLOW_PRIVATE_WEBHOOKS, say). */
export async function startBenchServer(env: Record<string, string> = {}) {
  const config: Config = {
    ...loadConfig({ ...process.env, JWT_SECRET: process.env.JWT_SECRET ?? BENCH_JWT_SECRET, RATE_LIMITS: "off", ...env }),
    port: 0, host: "127.0.0.1",
  };
  const db = await openDb(config, true);
  await migrate(db);
  const server = await startServer(config, createLogger({ logLevel: "silent", logPretty: false }), { db, migrate: false });
  /** A JSON request to the server; resolves with the parsed envelope, whatever its status. */
  const request = async (method: string, path: string, body?: unknown, token?: string): Promise<any> => {
    const res = await fetch(`${server.url}${path}`, {
      method,
      headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return res.json();
  };
  return { config, db, server, request };
}
