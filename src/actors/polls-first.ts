// A batch that a poll parked in this process is waiting for: the poll's answer is written
// before the batch's log append and bus events start. Both run on the same event loop; left
// in order they go first (the append's encoding and the events' snapshots take their turn
// between the poll's awaits), and the bot waited 0.1–0.9 ms longer for its update
// (bench/delivery.ts, interleaved A/B, load 0.4–3). They now start one turn later, once the
// poll's answer is on its socket; the sender's acknowledgement still waits for the log, and
// so pays about what the poll gains (+0.1–0.3 ms at low load): docs/decisions.md.
import type { IntakeDeps } from "./intake.ts";

/** A turn of the event loop: what the microtasks queued now (the poll's answer) runs first. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * `deps` with its after-commit work held back for one turn when `parkedHere(botId)` says a
 * poll of the batch's bot is parked in this process as the batch commits (it is offered the
 * batch by `committed`). A batch nobody here waits for goes out as before.
 */
export function pollsFirst(deps: IntakeDeps, parkedHere: (botId: string) => boolean): IntakeDeps {
  const { committed } = deps;
  if (!committed) return deps;
  // Bot → first update id of the batch offered to its parked poll. A bot's batches are
  // published one at a time, each right after it commits, so one entry per bot is enough.
  const offered = new Map<string, number>();
  return {
    ...deps,
    committed(botId, updates) {
      committed(botId, updates);
      if (updates[0] && parkedHere(botId)) offered.set(botId, updates[0].updateId);
    },
    publishEvents(effects) {
      const botId = effects.events[0]?.bot_id;
      if (botId !== undefined && offered.has(botId)) setImmediate(() => deps.publishEvents(effects));
      else deps.publishEvents(effects);
    },
    async publishUpdates(botId, updates) {
      if (updates[0] && offered.get(botId) === updates[0].updateId) {
        offered.delete(botId);
        await nextTurn();
      }
      return deps.publishUpdates(botId, updates);
    },
  };
}
