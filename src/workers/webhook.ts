// The `webhook` process's work (inside the one process when embedded): webhook and
// channel-callback delivery, split between every such process by leases. The worker itself
// is delivery/worker.ts; this entry only starts it from the services it is given.
import type { Services } from "../services.ts";
import type { WebhookWorker, WorkerOptions } from "../delivery/worker.ts";

export type { WebhookWorker, WorkerOptions };

export function startWebhookWorker(services: Services, options: WorkerOptions = {}): Promise<WebhookWorker> {
  return services.workers.delivery(options);
}
