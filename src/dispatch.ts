// Carries out a committed change's effects: events go to the bus (inbox live view,
// widget stream, push worker); updates go to the update log, after which their outbox
// rows are removed. A failure here never undoes the commit: the outbox relay retries
// updates, and events are best-effort notifications backed by the database.
import type { Db } from "./db/driver.ts";
import { deleteOutbox, listBotOutboxUpTo } from "./db/outbox.ts";
import type { EventBus } from "./bus/bus.ts";
import { eventSubject, type Effects, type PendingUpdate } from "./effects.ts";
import type { Logger } from "./logger.ts";

export interface UpdateSink {
  /** Makes the update durable in the log (and wakes pollers); resolves when it is. */
  publishUpdate(update: PendingUpdate): Promise<void>;
}

/**
 * Publishes a bot's outbox in update_id order. Transactions take update_ids under the
 * bot row's lock, so when update N has committed every update below N has too; publishing
 * all of them first means a reader that confirms past N can never have skipped one that
 * was still on its way (the log would drop it as already confirmed).
 */
export function createOutboxPublisher(db: Db, sink: UpdateSink) {
  const chains = new Map<string, Promise<void>>();
  return function publishUpTo(botId: string, uptoUpdateId: number): Promise<void> {
    const previous = chains.get(botId) ?? Promise.resolve();
    const next = previous.catch(() => {}).then(async () => {
      for (const row of await listBotOutboxUpTo(db, botId, uptoUpdateId)) {
        await sink.publishUpdate({ botId, updateId: row.update_id, payload: row.payload });
        await deleteOutbox(db, botId, row.update_id);
      }
    });
    chains.set(botId, next);
    void next.finally(() => {
      if (chains.get(botId) === next) chains.delete(botId);
    }).catch(() => {});
    return next;
  };
}

export function createDispatcher(deps: {
  bus: EventBus;
  logger: Logger;
  publishUpTo: (botId: string, uptoUpdateId: number) => Promise<void>;
}) {
  return async function dispatch(effects: Effects): Promise<void> {
    const highest = new Map<string, number>();
    for (const u of effects.updates) highest.set(u.botId, Math.max(u.updateId, highest.get(u.botId) ?? 0));
    for (const [botId, upto] of highest) await deps.publishUpTo(botId, upto);
    for (const event of effects.events) {
      deps.bus.publish(eventSubject(event), event).catch((err: unknown) => deps.logger.warn({ err, kind: event.kind }, "event publish failed"));
    }
  };
}
