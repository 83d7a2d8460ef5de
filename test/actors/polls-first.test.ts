// A batch a poll parked here waits for: its log append and bus events start only after the
// microtasks queued by then (the poll's answer) have run; other batches go out at once.
import { describe, expect, test } from "bun:test";
import type { IntakeDeps } from "../../src/actors/intake.ts";
import { pollsFirst } from "../../src/actors/polls-first.ts";
import type { Effects, PendingUpdate } from "../../src/core/events.ts";

const updates = (...ids: number[]): PendingUpdate[] => ids.map((id) => ({ botId: "b", updateId: id, payload: {} }));
const effects = (botId: string) => ({ events: [{ bot_id: botId }], updates: [] }) as unknown as Effects;

/** A chain of awaits like the poll's answer (actor → use case → route → response). */
async function answerChain(order: string[]) {
  for (let i = 0; i < 20; i++) await Promise.resolve();
  order.push("poll answered");
}

function fakeDeps(order: string[]) {
  const offered: number[][] = [];
  const deps = {
    publishUpdates: async (_botId: string, list: PendingUpdate[]) => void order.push(`append ${list.map((u) => u.updateId)}`),
    forgetPublished: () => {},
    publishEvents: (e: Effects) => void order.push(`events ${e.events[0]?.bot_id}`),
    committed: (_botId: string, list: PendingUpdate[]) => void offered.push(list.map((u) => u.updateId)),
  } as unknown as IntakeDeps;
  return { deps, offered };
}

/** What the intake does after a commit: offer, then events and the log append, all in one go. */
function afterCommit(deps: IntakeDeps, botId: string, list: PendingUpdate[]) {
  deps.committed!(botId, list);
  deps.publishEvents(effects(botId));
  return deps.publishUpdates(botId, list);
}

describe("pollsFirst", () => {
  test("a poll parked here answers before the batch's events and log append start", async () => {
    const order: string[] = [];
    const { deps, offered } = fakeDeps(order);
    const wrapped = pollsFirst(deps, (botId) => botId === "b");
    const answered = answerChain(order);
    const published = afterCommit(wrapped, "b", updates(5, 6));
    await Promise.all([answered, published]);
    expect(offered).toEqual([[5, 6]]);
    expect(order).toEqual(["poll answered", "events b", "append 5,6"]);
  });

  test("nobody parked here: everything goes out at once, in the intake's order", async () => {
    const order: string[] = [];
    const { deps } = fakeDeps(order);
    const wrapped = pollsFirst(deps, () => false);
    const answered = answerChain(order);
    const published = afterCommit(wrapped, "b", updates(5));
    await Promise.all([answered, published]);
    expect(order).toEqual(["events b", "append 5", "poll answered"]);
  });

  test("only the offered batch waits: another bot's events and a later batch do not", async () => {
    const order: string[] = [];
    const { deps } = fakeDeps(order);
    const wrapped = pollsFirst(deps, (botId) => botId === "b");
    await afterCommit(wrapped, "b", updates(1));
    order.length = 0;
    // The offer was used up by its own batch: a later publish of b (a repeat's, say) goes at once.
    const answered = answerChain(order);
    wrapped.publishEvents(effects("other"));
    const published = wrapped.publishUpdates("b", updates(2));
    await Promise.all([answered, published]);
    expect(order).toEqual(["events other", "append 2", "poll answered"]);
  });

  test("without a committed hook (embedded: the log is written by the transaction) deps are kept as they are", () => {
    const { deps } = fakeDeps([]);
    const embedded = { ...deps, committed: undefined };
    expect(pollsFirst(embedded, () => true)).toBe(embedded);
  });
});
