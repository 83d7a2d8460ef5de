import { connect, type NatsConnection } from "nats";

/** A NATS_URL that does not answer must fail start-up, not hang it. */
const CONNECT_TIMEOUT_MS = 5000;

export type { NatsConnection };

/** One connection per process, shared by the update log, the event bus and the leases. */
export async function connectNats(url: string, name: string): Promise<NatsConnection> {
  const nc = await connect({ servers: url, name, timeout: CONNECT_TIMEOUT_MS, maxReconnectAttempts: -1 });
  // JetStream must be enabled on the server: fail now rather than at the first publish.
  await nc.jetstreamManager();
  return nc;
}
