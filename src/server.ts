import "./http/production.ts";
import { ConfigError, loadConfig, type Config } from "./config.ts";
import { createApp, type AppState } from "./http/app.ts";
import { recordPeer } from "./http/client.ts";
import { createLogger, type Logger } from "./logger.ts";
import { openPlatform, StartupError, type OpenOptions, type Platform } from "./platform.ts";
import { startWebhookWorker } from "./webhooks/worker.ts";
import { startPushWorker } from "./push/worker.ts";

/**
 * Bun's own ceiling, far above our 64 KiB check: a declared length up to here gets our 413
 * envelope (from the header, unread); beyond it Bun answers a bare 413 without buffering it.
 */
const SERVER_MAX_BODY_BYTES = 16 * 1024 * 1024;
/** Long polls last up to 50 s; the socket must outlive them. */
const IDLE_TIMEOUT_SECONDS = 120;
/** How long SIGTERM waits for in-flight requests before closing anyway. */
const DRAIN_TIMEOUT_MS = 10_000;

export interface RunningServer {
  url: string;
  platform: Platform;
  stop(): Promise<void>;
}

export async function startServer(config: Config, logger: Logger, options: OpenOptions = {}): Promise<RunningServer> {
  const platform = await openPlatform(config, logger, options);
  const state: AppState = { draining: false };
  const app = createApp(platform, state);
  const server = Bun.serve({
    port: config.port,
    hostname: config.host,
    maxRequestBodySize: SERVER_MAX_BODY_BYTES,
    idleTimeout: IDLE_TIMEOUT_SECONDS,
    fetch: (request, bun) => {
      // Elysia's own `server` is null under app.handle; the socket's address is handed down here.
      recordPeer(request, bun.requestIP(request)?.address, config.trustProxy);
      return app.handle(request);
    },
  });
  const url = `http://${config.host === "0.0.0.0" ? "localhost" : config.host}:${server.port}`;
  let stopped: Promise<void> | undefined;
  return {
    url,
    platform,
    stop() {
      stopped ??= (async () => {
        state.draining = true;
        platform.beginShutdown();
        const drained = server.stop(false);
        await Promise.race([drained, Bun.sleep(DRAIN_TIMEOUT_MS)]);
        server.stop(true);
        await platform.close();
      })();
      return stopped;
    },
  };
}

/** A process that runs until SIGTERM: what it serves, and how it drains. */
interface Running {
  describe: string;
  url?: string;
  stop(): Promise<void>;
}

export type Role = "all" | "web" | "webhook" | "push";

interface Worker {
  stop(): Promise<void>;
}

/** Processes that run one worker and no HTTP front. */
const WORKER_ROLES: Record<"webhook" | "push", { describe: string; start(platform: Platform): Promise<Worker> }> = {
  webhook: { describe: "delivering webhooks and channel callbacks", start: startWebhookWorker },
  push: { describe: "sending operator push notifications", start: startPushWorker },
};

/** Opens what `role` runs: the HTTP front, one worker, or all of them (the all-in-one default). */
async function startRole(role: Role, config: Config, logger: Logger, overrides: OpenOptions): Promise<Running> {
  if (role === "webhook" || role === "push") {
    const { describe, start } = WORKER_ROLES[role];
    const platform = await openPlatform(config, logger, { processName: role, ...overrides });
    const worker = await start(platform);
    return {
      describe,
      async stop() {
        platform.beginShutdown();
        await worker.stop();
        await platform.close();
      },
    };
  }
  const server = await startServer(config, logger, overrides);
  const worker = role === "all" ? await startWebhookWorker(server.platform) : undefined;
  const push = role === "all" ? await startPushWorker(server.platform) : undefined;
  return {
    describe: `serving on ${server.url}`,
    url: server.url,
    async stop() {
      // Leases are released first, so another process takes the bots over at once.
      await worker?.stop();
      await push?.stop();
      await server.stop();
    },
  };
}

/** Entry for every process: exits 1 with a clear sentence on bad configuration. */
export async function main(role: Role, overrides: OpenOptions = {}): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    console.error(`configuration error: ${(err as Error).message}`);
    process.exit(1);
  }
  const logger = createLogger(config);
  let running: Running;
  try {
    running = await startRole(role, config, logger, overrides);
  } catch (err) {
    if (err instanceof StartupError || err instanceof ConfigError) {
      logger.fatal(err.message);
      console.error(`startup error: ${err.message}`);
      process.exit(1);
    }
    throw err;
  }
  logger.info({ url: running.url, mode: config.mode, role }, running.describe);
  const shutdown = async (signal: string) => {
    logger.info({ signal }, "draining");
    await running.stop();
    logger.info("stopped");
    process.exit(0);
  };
  process.once("SIGTERM", () => void shutdown("SIGTERM"));
  process.once("SIGINT", () => void shutdown("SIGINT"));
}
