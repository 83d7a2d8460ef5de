// Shared test fixtures: one database per test process (PGlite starts in seconds, so it is
// opened once and reused), a fresh app per test file, and small request helpers.
import { loadConfig, type Config } from "../../src/config.ts";
import type { Db } from "../../src/db/driver.ts";
import { migrate } from "../../src/db/migrate.ts";
import { createApp, type App } from "../../src/http/app.ts";
import { createLogger } from "../../src/logger.ts";
import { openDb, openPlatform, type OpenOptions, type Platform } from "../../src/platform.ts";
import { composeServices, wire, type Services, type Wiring } from "../../src/services.ts";

export const MODE = process.env.DATABASE_URL ? "production" : "embedded";

const shared = globalThis as unknown as { __testDb?: Promise<Db> };

export function testConfig(overrides: Partial<Config> = {}): Config {
  return { ...loadConfig(), port: 0, host: "127.0.0.1", ...overrides };
}

/** The process-wide test database, migrated once. */
export function sharedDb(): Promise<Db> {
  shared.__testDb ??= (async () => {
    const db = await openDb(testConfig(), true);
    await migrate(db);
    return db;
  })();
  return shared.__testDb;
}

export async function testPlatform(overrides: Partial<Config> = {}, options: OpenOptions = {}): Promise<Platform> {
  const config = testConfig(overrides);
  return openPlatform(config, createLogger(config), { db: await sharedDb(), migrate: false, relayIntervalMs: 0, ...options });
}

export interface TestResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export interface Client {
  app: App;
  platform: Platform;
  /** What the platform's use cases run on (tests drive domain functions with it). */
  wiring: Wiring;
  services: Services;
  request<T = any>(method: string, path: string, options?: { body?: unknown; token?: string; headers?: Record<string, string>; raw?: string }): Promise<TestResponse<T>>;
  get<T = any>(path: string, token?: string): Promise<TestResponse<T>>;
  post<T = any>(path: string, body?: unknown, token?: string): Promise<TestResponse<T>>;
  patch<T = any>(path: string, body?: unknown, token?: string): Promise<TestResponse<T>>;
}

export async function testClient(overrides: Partial<Config> = {}, options: OpenOptions = {}): Promise<Client> {
  return clientFor(await testPlatform(overrides, options));
}

/** Requests through the app of a platform the test opened itself (one it restarts, say). */
export function clientFor(platform: Platform): Client {
  const wiring = wire(platform);
  const services = composeServices(platform, wiring);
  const app = createApp(services);
  const client: Client = {
    app,
    platform,
    wiring,
    services,
    async request(method, path, options = {}) {
      const headers: Record<string, string> = { ...options.headers };
      if (options.token) headers.authorization = `Bearer ${options.token}`;
      let body: string | undefined = options.raw;
      if (options.body !== undefined) {
        body = JSON.stringify(options.body);
        headers["content-type"] ??= "application/json";
      } else if (body !== undefined) {
        headers["content-type"] ??= "application/json";
      }
      const res = await app.handle(new Request(`http://test.local${path}`, { method, headers, body }));
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {}
      return { status: res.status, headers: res.headers, body: parsed as any };
    },
    get: (path, token) => client.request("GET", path, { token }),
    post: (path, body, token) => client.request("POST", path, { body, token }),
    patch: (path, body, token) => client.request("PATCH", path, { body, token }),
  };
  return client;
}

let counter = 0;
export const uniqueEmail = (prefix = "user") =>
  `${prefix}-${Date.now().toString(36)}-${(counter++).toString(36)}-${Math.random().toString(36).slice(2, 8)}@example.com`;

export interface TestUser {
  token: string;
  id: string;
  email: string;
}

export async function registerUser(client: Client, email = uniqueEmail()): Promise<TestUser> {
  const res = await client.post("/api/auth/register", { email, password: "secret123" });
  if (res.status !== 200) throw new Error(`register failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { token: res.body.result.token, id: res.body.result.user.id, email };
}

export interface TestBot {
  id: string;
  number: number;
  token: string;
  widget_key: string;
  integration_key: string;
  username: string;
}

export async function createTestBot(client: Client, user: TestUser, name = "Test bot"): Promise<TestBot> {
  const res = await client.post("/api/bots", { name }, user.token);
  if (res.status !== 201) throw new Error(`create bot failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.result;
}
