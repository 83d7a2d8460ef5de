import "./http/production.ts";
import type { Config } from "./config.ts";
import { MAX_UPLOAD_REQUEST_BYTES } from "./core/files.ts";
import { createApp, type AppState } from "./http/app.ts";
import { recordPeer } from "./http/client.ts";
import type { Logger } from "./logger.ts";
import { openPlatform, StartupError, type OpenOptions, type Platform } from "./platform.ts";
import { composeServices, type Services } from "./services.ts";
import { runProcess, startWorkerRole, type Role, type Running } from "./process.ts";
import { startWebhookWorker } from "./workers/webhook.ts";
import { startMailWorker } from "./workers/mail.ts";
import { startPushWorker } from "./workers/push.ts";
import { startControlSocket } from "./backup/control.ts";

export type { Role } from "./process.ts";

/**
 * Bun's own ceiling: the largest upload a route accepts (bodies are streamed, not buffered).
 * Every route's own limit (64 KiB, or a file route's) is checked below it, from the header
 * when declared, so anything larger gets our 413 envelope unread; beyond it Bun answers a bare 413.
 */
const SERVER_MAX_BODY_BYTES = MAX_UPLOAD_REQUEST_BYTES;
/** Long polls last up to 50 s; the socket must outlive them. */
const IDLE_TIMEOUT_SECONDS = 120;
/** How long SIGTERM waits for in-flight requests before closing anyway. */
const DRAIN_TIMEOUT_MS = 10_000;
/**
 * On SIGTERM the process keeps serving this long (answering with `Connection: close`, /readyz
 * 503) before it stops listening: a request a client sent just before the process left its
 * rotation may still be on its way on a pooled keep-alive socket, and closing idle sockets at
 * once reset it (ECONNRESET in the rolling-upgrade test, 1 send in 3,200).
 */
const DRAIN_GRACE_MS = 1_000;

export interface RunningServer {
  url: string;
  platform: Platform;
  services: Services;
  /** `graceMs`: how long to keep serving (draining) before the listener closes; 0 for tests. */
  stop(graceMs?: number): Promise<void>;
}

/** The sentence for a port that cannot be listened on, or undefined for other errors. */
function listenRefusal(config: Config, err: unknown): StartupError | undefined {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === "EADDRINUSE") return new StartupError(`port ${config.port} on ${config.host} is already in use: stop what listens there or set PORT`);
  if (code === "EACCES") return new StartupError(`no permission to listen on port ${config.port}: use a port above 1023 or set PORT`);
  return undefined;
}

/**
 * Tries the port before the database opens: a taken port is said at once, not after
 * PGlite's start and the migrations (tens of seconds on a busy machine). The real listen
 * below still maps the same errors, for a port taken in between.
 */
function probePort(config: Config): void {
  if (config.port === 0) return;
  try {
    Bun.listen({ hostname: config.host, port: config.port, socket: { data() {} } }).stop(true);
  } catch (err) {
    throw listenRefusal(config, err) ?? err;
  }
}

export async function startServer(config: Config, logger: Logger, options: OpenOptions = {}): Promise<RunningServer> {
  probePort(config);
  const platform = await openPlatform(config, logger, options);
  const state: AppState = { draining: false };
  const services = composeServices(platform);
  const app = createApp(services, state);
  let server: ReturnType<typeof Bun.serve>;
  try {
    server = serve(config, app, state);
  } catch (err) {
    await platform.close();
    throw listenRefusal(config, err) ?? err;
  }
  const url = `http://${config.host === "0.0.0.0" ? "localhost" : config.host}:${server.port}`;
  // Snoozes due, routing and reassignment: every web process scans (each step is multi-process safe).
  const teamScan = services.teamwork.scan();
  const retention = services.privacy.startRetention();
  // Embedded on DATA_DIR: `npm run backup` asks this process for the database's snapshot.
  const control = config.mode === "embedded" && !options.inMemory && !options.db ? startControlSocket(config.dataDir, platform.db, logger) : undefined;
  let stopped: Promise<void> | undefined;
  return {
    url,
    platform,
    services,
    stop(graceMs = 0) {
      stopped ??= (async () => {
        state.draining = true;
        if (graceMs > 0) await Bun.sleep(graceMs);
        control?.stop();
        // A pass under way finishes before the database closes; it does not delay the drain.
        const retentionStopped = retention.stop();
        platform.beginShutdown();
        const drained = server.stop(false);
        await Promise.race([drained, Bun.sleep(DRAIN_TIMEOUT_MS)]);
        server.stop(true);
        await teamScan.stop();
        await retentionStopped;
        await platform.close();
      })();
      return stopped;
    },
  };
}

function serve(config: Config, app: ReturnType<typeof createApp>, state: AppState) {
  return Bun.serve({
    port: config.port,
    hostname: config.host,
    maxRequestBodySize: SERVER_MAX_BODY_BYTES,
    idleTimeout: IDLE_TIMEOUT_SECONDS,
    fetch: (request, bun) => {
      // Elysia's own `server` is null under app.handle; the socket's address is handed down here.
      recordPeer(request, bun.requestIP(request)?.address, config.trustProxy);
      return state.draining ? app.handle(request).then(closingConnection) : app.handle(request);
    },
  });
}

/** While draining, clients are told not to reuse the connection (their next request goes elsewhere). */
function closingConnection(response: Response): Response {
  try {
    response.headers.set("connection", "close");
  } catch {
    // An immutable response (a static file's) is still answered; its socket closes with the listener.
  }
  return response;
}

/** Opens what `role` runs: the HTTP front, one worker, or all of them (the all-in-one default). */
async function startRole(role: Role, config: Config, logger: Logger, overrides: OpenOptions): Promise<Running> {
  if (role === "webhook" || role === "push" || role === "mail") return startWorkerRole(role, config, logger, overrides);
  if (role === "web" && config.mode === "embedded") {
    // A lone `web` on the embedded default would never deliver webhooks: run it whole, and say so.
    logger.warn(`no DATABASE_URL/NATS_URL: web runs embedded (PGlite in ${config.dataDir}/pgdata) with the webhook, push and mail workers in this process, like \`npm start\``);
    role = "all";
  }
  const server = await startServer(config, logger, overrides);
  const worker = role === "all" ? await startWebhookWorker(server.services) : undefined;
  const push = role === "all" ? await startPushWorker(server.services) : undefined;
  const mail = role === "all" ? await startMailWorker(server.services) : undefined;
  return {
    describe: `serving on ${server.url}`,
    url: server.url,
    async stop() {
      // Leases are released first, so another process takes the bots over at once.
      await worker?.stop();
      await push?.stop();
      await mail?.stop();
      await server.stop(DRAIN_GRACE_MS);
    },
  };
}

/** Entry for the HTTP processes (and any role): exits 1 with a clear sentence on bad configuration. */
export const main = (role: Role, overrides: OpenOptions = {}) => runProcess(role, startRole, overrides);
