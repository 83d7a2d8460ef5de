import { connect, Events, type NatsConnection } from "nats";
import { AppError, OUTAGE_RETRY_AFTER_SECONDS } from "./core/errors.ts";
import { jetStreamErrorCode, JS_STREAM_SUBJECTS_OVERLAP } from "./core/jetstream-errors.ts";
import type { Logger } from "./logger.ts";

/** A NATS_URL that does not answer must fail start-up, not hang it. */
const CONNECT_TIMEOUT_MS = 5000;
/** Why: a restarted server is found again within a quarter second of its return. */
const RECONNECT_WAIT_MS = 250;
/** Why: a request waiting on JetStream answers 503 within this when NATS is away, rather than after the client's 5 s default. */
export const NATS_REQUEST_TIMEOUT_MS = 2000;
/** Why: /readyz must answer fast; a round trip to a healthy local server takes well under a millisecond. */
const PING_TIMEOUT_MS = 1000;

export type { NatsConnection };

/**
 * Why: a cluster that has just formed (or just lost a node) elects JetStream leaders for a
 * few seconds, and creating a replicated stream then outlasts one request's timeout; a
 * process starting in that window waits this long for it rather than exiting.
 */
export const JETSTREAM_SETTLE_MS = 30_000;
const SETTLE_RETRY_MS = 500;

const settling = (err: unknown) => {
  const code = (err as { code?: string } | undefined)?.code;
  return code === "TIMEOUT" || code === "503" || jetStreamErrorCode(err) === JS_STREAM_SUBJECTS_OVERLAP;
};

/**
 * Runs a start-up step against JetStream again while the server is still settling (timeouts, no
 * responders) or another process is creating the same stream.
 */
export async function onceJetStreamSettles<T>(step: () => Promise<T>, logger?: Logger, what = "JetStream"): Promise<T> {
  const until = Date.now() + JETSTREAM_SETTLE_MS;
  for (;;) {
    try {
      return await step();
    } catch (err) {
      if (!settling(err) || Date.now() + SETTLE_RETRY_MS > until) throw err;
      logger?.warn({ err: String(err), what }, "JetStream is not answering yet; retrying");
      await new Promise((resolve) => setTimeout(resolve, SETTLE_RETRY_MS));
    }
  }
}

/** One connection per process, shared by the update log, the event bus and the leases. */
export async function connectNats(url: string, name: string): Promise<NatsConnection> {
  // Reconnects forever: a NATS restart is an outage to ride out, never a reason to exit.
  // NATS_URL may list a cluster's seeds, comma-separated; the client learns the rest from them.
  const nc = await connect({
    servers: url.split(",").map((s) => s.trim()).filter(Boolean), name, timeout: CONNECT_TIMEOUT_MS, maxReconnectAttempts: -1, reconnectTimeWait: RECONNECT_WAIT_MS,
    // Every request (each JetStream publish is one) would otherwise build two Error objects for
    // their stack traces, used only if it times out: 1.7 % of an ingesting process's CPU samples.
    noAsyncTraces: true,
  });
  // JetStream must be enabled on the server: fail now rather than at the first publish.
  await nc.jetstreamManager({ timeout: NATS_REQUEST_TIMEOUT_MS });
  return nc;
}

export interface NatsHealth {
  /** False from a disconnect until the client has reconnected. */
  connected(): boolean;
  /** Throws the 503 AppError at once while disconnected, so no request waits for a timeout. */
  assertConnected(): void;
  /** A server round trip within PING_TIMEOUT_MS (for /readyz). */
  ping(): Promise<boolean>;
}

/**
 * Follows the connection's status events, so callers know about an outage without a request.
 * `onReconnect`: the connection is back after a loss (the server may have restarted meanwhile).
 */
export function watchNats(nc: NatsConnection, logger?: Logger, onReconnect?: () => void): NatsHealth {
  let connected = !nc.isClosed();
  void (async () => {
    for await (const s of nc.status()) {
      if (s.type === Events.Disconnect) {
        if (connected) logger?.warn({ server: String(s.data) }, "NATS connection lost: requests that need it answer 503 until it is back");
        connected = false;
      } else if (s.type === Events.Reconnect) {
        if (!connected) logger?.info({ server: String(s.data) }, "NATS connection restored");
        connected = true;
        onReconnect?.();
      }
    }
  })().catch(() => undefined);
  const isUp = () => connected && !nc.isClosed();
  return {
    connected: isUp,
    assertConnected() {
      if (!isUp()) throw new AppError("unavailable", "NATS is unreachable, retry shortly", OUTAGE_RETRY_AFTER_SECONDS);
    },
    async ping() {
      if (!isUp()) return false;
      const timedOut = Bun.sleep(PING_TIMEOUT_MS).then(() => false);
      return Promise.race([nc.rtt().then(() => true, () => false), timedOut]);
    },
  };
}
