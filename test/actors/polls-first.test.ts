// A batch a poll parked here waits for: its log append and bus events start only after the
// microtasks queued by then (the poll's answer) have run; other batches go out at once.
// The IntakeActor itself, with a committer that commits nothing (a faked committed batch).
import { describe, expect, test } from "bun:test";
import { IntakeActor, type IntakeDeps } from "../../src/actors/intake.ts";
import type { Committed } from "../../src/actors/intake-committer.ts";
import type { IntakeItem } from "../../src/actors/intake-plan.ts";
import type { Effects, PendingUpdate } from "../../src/core/events.ts";

const BOT = "b";
const item = { chatId: "c", input: { bot: { id: BOT } } } as unknown as IntakeItem;

/** One request's batch, committed with updates `ids`; the request was a repeat, so no events are built. */
function committedBatch(ids: number[]): Committed {
  const conversation = { id: "conversation" };
  return {
    plan: {
      outcomes: [{ kind: "repeat", message: { conversation_id: conversation.id } }],
      messages: [], createdChats: new Set(), statusBefore: new Map(),
      updates: ids.map((id) => ({ update_id: id, payload: { update_id: id } })),
    },
    conversations: new Map([[conversation.id, conversation]]), contacts: new Map(), updateJson: ids.map(() => undefined),
  } as unknown as Committed;
}

/** A chain of awaits like the poll's answer (actor → use case → route → response). */
async function answerChain(order: string[]) {
  for (let i = 0; i < 20; i++) await Promise.resolve();
  order.push("poll answered");
}

/** Each commit takes the next of `batches`; `parkedHere` says whether its offer finds a poll parked here (one per batch, or all). */
function fakeDeps(order: string[], batches: number[][], parkedHere: boolean | boolean[], embedded = false) {
  const parkedFor = Array.isArray(parkedHere) ? [...parkedHere] : batches.map(() => parkedHere);
  const offered: number[][] = [];
  const answers: Promise<void>[] = [];
  const deps: IntakeDeps = {
    committer: {
      // The batch commits; a chain of awaits starts with it: the poll's answer when one is parked here.
      commit: async () => {
        answers.push(answerChain(order));
        return committedBatch(batches.shift()!);
      },
    },
    publishUpdates: async (_botId: string, list: PendingUpdate[]) => void order.push(`append ${list.map((u) => u.updateId)}`),
    forgetPublished: () => {},
    publishEvents: (_effects: Effects) => void order.push("events"),
    turnBetweenBatches: embedded,
    committed: (_botId: string, list: PendingUpdate[]) => {
      offered.push(list.map((u) => u.updateId));
      return parkedFor.shift()!;
    },
    logInTransaction: embedded ? { wake: async (_botId, list) => void order.push(`wake ${list.map((u) => u.updateId)}`) } : undefined,
  };
  return { deps, offered, answers };
}

describe("a committed batch that a poll parked here waits for (IntakeActor)", () => {
  test("the poll's answer is complete before the batch's events and log append start; the sender is still answered", async () => {
    const order: string[] = [];
    const { deps, offered, answers } = fakeDeps(order, [[5, 6]], true);
    const { accepted } = new IntakeActor(deps, BOT).submit(item);
    expect((await accepted).repeated).toBe(true);
    await Promise.all(answers);
    expect(offered).toEqual([[5, 6]]);
    expect(order).toEqual(["poll answered", "events", "append 5,6"]);
  });

  test("nobody parked here: the events and the log append go out at once", async () => {
    const order: string[] = [];
    const { deps, offered, answers } = fakeDeps(order, [[5]], false);
    await new IntakeActor(deps, BOT).submit(item).accepted;
    await Promise.all(answers);
    expect(offered).toEqual([[5]]);
    expect(order).toEqual(["events", "append 5", "poll answered"]);
  });

  test("only the batch the poll took waits: the bot's next batch, with nobody parked, goes at once", async () => {
    const order: string[] = [];
    const { deps, offered, answers } = fakeDeps(order, [[1], [2]], [true, false]);
    const actor = new IntakeActor(deps, BOT);
    await actor.submit(item).accepted;
    await Promise.all(answers);
    order.length = 0;
    await actor.submit(item).accepted;
    await Promise.all(answers);
    expect(offered).toEqual([[1], [2]]);
    expect(order).toEqual(["events", "append 2", "poll answered"]);
  });

  test("embedded (the log is written by the transaction): nothing is offered, pollers are woken at once", async () => {
    const order: string[] = [];
    const { deps, offered, answers } = fakeDeps(order, [[5]], true, true);
    await new IntakeActor(deps, BOT).submit(item).accepted;
    await Promise.all(answers);
    expect(offered).toEqual([]);
    expect(order).toEqual(["events", "wake 5", "poll answered"]);
  });
});
