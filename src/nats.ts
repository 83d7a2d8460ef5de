import { connect, Events, type NatsConnection } from "nats";
import { AppError, OUTAGE_RETRY_AFTER_SECONDS } from "./core/errors.ts";
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

/** One connection per process, shared by the update log, the event bus and the leases. */
export async function connectNats(url: string, name: string): Promise<NatsConnection> {
  // Reconnects forever: a NATS restart is an outage to ride out, never a reason to exit.
  // NATS_URL may list a cluster's seeds, comma-separated; the client learns the rest from them.
  const nc = await connect({ servers: url.split(",").map((s) => s.trim()).filter(Boolean), name, timeout: CONNECT_TIMEOUT_MS, maxReconnectAttempts: -1, reconnectTimeWait: RECONNECT_WAIT_MS });
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

/** Follows the connection's status events, so callers know about an outage without a request. */
export function watchNats(nc: NatsConnection, logger?: Logger): NatsHealth {
  let connected = !nc.isClosed();
  void (async () => {
    for await (const s of nc.status()) {
      if (s.type === Events.Disconnect) {
        if (connected) logger?.warn({ server: String(s.data) }, "NATS connection lost: requests that need it answer 503 until it is back");
        connected = false;
      } else if (s.type === Events.Reconnect) {
        if (!connected) logger?.info({ server: String(s.data) }, "NATS connection restored");
        connected = true;
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
