// Carries out a committed change's effects: events go to the bus (inbox live view,
// widget stream, push worker); updates go to the update log, after which their outbox
// rows are removed. A failure here never undoes the commit: the outbox relay retries
// updates, and events are best-effort notifications backed by the database.
import type { Db } from "./db/driver.ts";
import { deleteOutbox } from "./db/outbox.ts";
import type { EventBus } from "./bus/bus.ts";
import { eventSubject, type Effects, type PendingUpdate } from "./effects.ts";
import type { Logger } from "./logger.ts";

export interface UpdateSink {
  /** Makes the update durable in the log (and wakes pollers); resolves when it is. */
  publishUpdate(update: PendingUpdate): Promise<void>;
}

export function createDispatcher(deps: { db: Db; bus: EventBus; logger: Logger; updates?: () => UpdateSink | undefined }) {
  return async function dispatch(effects: Effects): Promise<void> {
    const sink = deps.updates?.();
    if (sink) {
      for (const update of effects.updates) {
        await sink.publishUpdate(update);
        await deleteOutbox(deps.db, update.botId, update.updateId);
      }
    }
    for (const event of effects.events) {
      deps.bus.publish(eventSubject(event), event).catch((err) => deps.logger.warn({ err, kind: event.kind }, "event publish failed"));
    }
  };
}
