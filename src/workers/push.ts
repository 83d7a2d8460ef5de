// The `push` process's work (inside the one process when embedded): turns incoming-message
// events into operator push notifications. The event queue shares them between every `push`
// process, whichever backend it has; delivery/push.ts does the sending.
import type { Services } from "../services.ts";

const PUSH_CONSUMER = "push-worker";

export interface PushWorker {
  stop(): Promise<void>;
}

export interface PushWorkerOptions {
  /** Tests use a consumer of their own (removed on stop) so parallel runs never share events. */
  consumerName?: string;
}

export function startPushWorker(services: Services, options: PushWorkerOptions = {}): Promise<PushWorker> {
  return services.workers.push({ name: options.consumerName ?? PUSH_CONSUMER, removeOnStop: options.consumerName !== undefined });
}
