// Process lifecycle shared by every entry point: configuration (exit 1 with a sentence),
// the logger, SIGTERM/SIGINT draining, and the worker-only roles. It does not load the HTTP
// front, so the `webhook` and `push` processes never import Elysia (src/server.ts does).
import { ConfigError, loadConfig, type Config } from "./config.ts";
import { createLogger, type Logger } from "./logger.ts";
import { openPlatform, StartupError, type OpenOptions, type Platform } from "./platform.ts";
import { composeServices, type Services } from "./services.ts";
import { startWebhookWorker } from "./workers/webhook.ts";
import { startPushWorker } from "./workers/push.ts";
import { startMailWorker } from "./workers/mail.ts";

/** A process that runs until SIGTERM: what it serves, and how it drains. */
export interface Running {
  describe: string;
  url?: string;
  stop(): Promise<void>;
}

export type Role = "all" | "web" | "webhook" | "push" | "mail";

export interface Worker {
  stop(): Promise<void>;
}

/** Processes that run one worker and no HTTP front. */
const WORKER_ROLES: Record<WorkerRole, { describe: string; start(services: Services): Promise<Worker> }> = {
  webhook: { describe: "delivering webhooks and channel callbacks", start: startWebhookWorker },
  push: { describe: "sending operator push notifications", start: startPushWorker },
  mail: { describe: "reading and sending the e-mail channel's mail", start: startMailWorker },
};

export type WorkerRole = "webhook" | "push" | "mail";

/** Opens a worker-only process: the platform and one worker, no HTTP. */
export async function startWorkerRole(role: WorkerRole, config: Config, logger: Logger, overrides: OpenOptions): Promise<Running> {
  const { describe, start } = WORKER_ROLES[role];
  if (config.mode === "embedded") {
    // Embedded, a worker would open its own copy of the data directory and deliver nothing.
    throw new StartupError(`the ${role} process needs DATABASE_URL and NATS_URL (production); the embedded default runs every worker inside \`npm start\``);
  }
  const platform = await openPlatform(config, logger, { processName: role, ...overrides });
  let metricsServer: ReturnType<typeof Bun.serve> | undefined;
  try {
    metricsServer = config.metricsPort === undefined ? undefined : serveMetrics(platform, config.host, config.metricsPort);
  } catch (err) {
    await platform.close();
    if ((err as NodeJS.ErrnoException).code === "EADDRINUSE") throw new StartupError(`METRICS_PORT ${config.metricsPort} is already in use: choose another`);
    throw err;
  }
  const worker = await start(composeServices(platform));
  return {
    describe,
    url: metricsServer ? `http://${config.host === "0.0.0.0" ? "localhost" : config.host}:${metricsServer.port}/metrics` : undefined,
    async stop() {
      platform.beginShutdown();
      await worker.stop();
      metricsServer?.stop(true);
      await platform.close();
    },
  };
}

/** A worker has no HTTP front; with METRICS_PORT it still answers GET /metrics, and nothing else. */
function serveMetrics(platform: Platform, hostname: string, port: number) {
  return Bun.serve({
    port,
    hostname,
    async fetch(request) {
      if (new URL(request.url).pathname !== "/metrics") return new Response("not found", { status: 404 });
      return new Response(await platform.metrics.text(), { headers: { "content-type": platform.metrics.contentType } });
    },
  });
}

export type StartRole = (role: Role, config: Config, logger: Logger, overrides: OpenOptions) => Promise<Running>;

/** Entry for every process: exits 1 with a clear sentence on bad configuration. */
export async function runProcess(role: Role, startRole: StartRole, overrides: OpenOptions = {}): Promise<void> {
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
    // Every failed start ends in one sentence and exit 1; an unforeseen one keeps its stack in the log.
    const expected = err instanceof StartupError || err instanceof ConfigError;
    if (expected) logger.fatal((err as Error).message);
    else logger.fatal({ err }, "start-up failed");
    console.error(`startup error: ${(err as Error).message}`);
    process.exit(1);
  }
  releaseStartupMemory();
  logger.info({ url: running.url, mode: config.mode, role, natsPrefix: config.natsPrefix || undefined }, running.describe);
  const shutdown = async (signal: string) => {
    logger.info({ signal }, "draining");
    await running.stop();
    logger.info("stopped");
    process.exit(0);
  };
  process.once("SIGTERM", () => void shutdown("SIGTERM"));
  process.once("SIGINT", () => void shutdown("SIGINT"));
}

/**
 * Start-up frees most of what it allocates (module parsing, PGlite's WASM compile and start,
 * the migration check), but the allocator keeps freed pages resident until it is called
 * again, and an idle process does not call it: the embedded default read 154–160 MB idle,
 * 135–151 with this (docs/decisions.md, "Start-up's freed memory goes back to the kernel"). JSC
 * runs it at its next idle moment; the code it drops is compiled again when first used.
 */
function releaseStartupMemory(): void {
  Bun.gc(true);
  Bun.shrink();
}
