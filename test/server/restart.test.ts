// Users, bots and the signing key outlive a restart. Embedded:
// a real PGlite in a temporary DATA_DIR, with JWT_SECRET unset so the generated secret
// file is what signs tokens. Production: the same walk against Postgres.
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Config } from "../../src/config.ts";
import { createLogger } from "../../src/logger.ts";
import { startServer, type RunningServer } from "../../src/server.ts";
import { MODE, testConfig, uniqueEmail } from "../support/harness.ts";

/** Bun ignores bunfig's [test] timeout (5 s stays the default); two PGlite starts from disk need more. */
const SLOW_MS = 60_000;
setDefaultTimeout(SLOW_MS);

const dataDir = mkdtempSync(join(tmpdir(), "botinbox-restart-"));
const running: RunningServer[] = [];

afterAll(async () => {
  await Promise.all(running.map((s) => s.stop()));
  rmSync(dataDir, { recursive: true, force: true });
}, SLOW_MS);

function restartConfig(): Config {
  if (MODE === "embedded") {
    return testConfig({ mode: "embedded", dataDir, databaseUrl: undefined, natsUrl: undefined, jwtSecret: undefined });
  }
  return testConfig({ dataDir });
}

async function start(config: Config): Promise<RunningServer> {
  const server = await startServer(config, createLogger(config), { migrate: true });
  running.push(server);
  return server;
}

async function stop(server: RunningServer): Promise<void> {
  await server.stop();
  running.splice(running.indexOf(server), 1);
}

async function call(server: RunningServer, method: string, path: string, body?: unknown, token?: string) {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers["content-type"] = "application/json";
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await fetch(`${server.url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as any };
}

describe(`restart (${MODE})`, () => {
  test("users, bots, bot tokens and user tokens survive a restart", async () => {
    const config = restartConfig();
    const email = uniqueEmail("restart");
    const password = "secret123";

    const first = await start(config);
    const registered = await call(first, "POST", "/api/auth/register", { email, password });
    expect(registered.status).toBe(200);
    const tokenBefore: string = registered.body.result.token;
    const userId: string = registered.body.result.user.id;
    const created = await call(first, "POST", "/api/bots", { name: "Survivor" }, tokenBefore);
    expect(created.status).toBe(201);
    const bot = created.body.result;
    const secretFile = join(dataDir, "jwt-secret");
    const secretBefore = MODE === "embedded" ? readFileSync(secretFile, "utf8") : undefined;
    await stop(first);

    const second = await start(config);
    expect((await call(second, "GET", "/healthz")).status).toBe(200);

    const login = await call(second, "POST", "/api/auth/login", { email, password });
    expect(login.status).toBe(200);
    expect(login.body.result.user.id).toBe(userId);
    const tokenAfter: string = login.body.result.token;

    const bots = await call(second, "GET", "/api/bots", undefined, tokenAfter);
    expect(bots.status).toBe(200);
    expect(bots.body.result).toHaveLength(1);
    expect(bots.body.result[0]).toMatchObject({
      id: bot.id,
      number: bot.number,
      name: "Survivor",
      username: bot.username,
      token: bot.token,
      widget_key: bot.widget_key,
      integration_key: bot.integration_key,
    });

    // A token signed before the restart still verifies, so the key was not regenerated.
    const me = await call(second, "GET", "/api/auth/me", undefined, tokenBefore);
    expect(me.status).toBe(200);
    expect(me.body.result.email).toBe(email);
    const card = await call(second, "GET", `/api/bots/${bot.id}`, undefined, tokenBefore);
    expect(card.status).toBe(200);
    expect(card.body.result.token).toBe(bot.token);

    if (MODE === "embedded") {
      expect(existsSync(join(dataDir, "pgdata"))).toBe(true);
      expect(readFileSync(secretFile, "utf8")).toBe(secretBefore!);
      expect(secretBefore!.trim().length).toBeGreaterThanOrEqual(32);
    }
    await stop(second);
  }, SLOW_MS);
});
