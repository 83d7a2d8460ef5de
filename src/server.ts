import "./http/production.ts";
import type { Config } from "./config.ts";
import { createApp, type AppState } from "./http/app.ts";
import { recordPeer } from "./http/client.ts";
import type { Logger } from "./logger.ts";
import { openPlatform, StartupError, type OpenOptions, type Platform } from "./platform.ts";
import { runProcess, startWorkerRole, type Role, type Running } from "./process.ts";
import { startWebhookWorker } from "./workers/webhook.ts";
import { startPushWorker } from "./workers/push.ts";

export type { Role } from "./process.ts";

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
  let server: ReturnType<typeof Bun.serve>;
  try {
    server = serve(config, app);
  } catch (err) {
    await platform.close();
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "EADDRINUSE") throw new StartupError(`port ${config.port} on ${config.host} is already in use: stop what listens there or set PORT`);
    if (code === "EACCES") throw new StartupError(`no permission to listen on port ${config.port}: use a port above 1023 or set PORT`);
    throw err;
  }
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

function serve(config: Config, app: ReturnType<typeof createApp>) {
  return Bun.serve({
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
}

/** Opens what `role` runs: the HTTP front, one worker, or all of them (the all-in-one default). */
async function startRole(role: Role, config: Config, logger: Logger, overrides: OpenOptions): Promise<Running> {
  if (role === "webhook" || role === "push") return startWorkerRole(role, config, logger, overrides);
  if (role === "web" && config.mode === "embedded") {
    // A lone `web` on the embedded default would never deliver webhooks: run it whole, and say so.
    logger.warn(`no DATABASE_URL/NATS_URL: web runs embedded (PGlite in ${config.dataDir}/pgdata) with the webhook and push workers in this process, like \`npm start\``);
    role = "all";
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

/** Entry for the HTTP processes (and any role): exits 1 with a clear sentence on bad configuration. */
export const main = (role: Role, overrides: OpenOptions = {}) => runProcess(role, startRole, overrides);
