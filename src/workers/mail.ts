// The `mail` process's work (inside the one process when embedded): reading the e-mail
// channel's mailboxes and sending its mail, split between every such process by leases. The
// worker itself is delivery/mail/worker.ts; this entry only starts it from the services it is given.
import type { Services } from "../services.ts";
import type { MailWorker, MailWorkerOptions } from "../delivery/mail/worker.ts";

export type { MailWorker, MailWorkerOptions };

export function startMailWorker(services: Services, options: MailWorkerOptions = {}): Promise<MailWorker> {
  return services.workers.mail(options);
}
