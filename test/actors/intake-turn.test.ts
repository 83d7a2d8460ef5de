// When a bot's next batch leaves for the committer (actors/intake.ts `turnBetweenBatches`): on
// PostgreSQL at once after the last one's commit settles, on PGlite an event-loop turn later.
import { expect, test } from "bun:test";
import { IntakeActor, type IntakeDeps } from "../../src/actors/intake.ts";
import type { IntakeItem } from "../../src/actors/intake-plan.ts";

const BOT = "11111111-1111-4111-8111-111111111111";
const item = { chatId: "chat-1", input: { bot: { id: BOT } } } as unknown as IntakeItem;
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A committer whose first commit settles (refused) when told to; later ones are refused at once. */
function holdingCommitter() {
  const calls: number[] = [];
  let release!: () => void;
  const commit = (_bot: unknown, items: IntakeItem[]) => {
    calls.push(items.length);
    if (calls.length > 1) return Promise.reject(new Error("refused"));
    return new Promise<never>((_, reject) => (release = () => reject(new Error("refused"))));
  };
  return { calls, commit, release: () => release() };
}

for (const turnBetweenBatches of [false, true]) {
  test(`a request that arrived while its bot's batch committed leaves ${turnBetweenBatches ? "a turn after (PGlite)" : "at once after (PostgreSQL)"} that commit settles`, async () => {
    const committer = holdingCommitter();
    const deps: IntakeDeps = {
      committer: committer as unknown as IntakeDeps["committer"],
      publishUpdates: async () => {},
      forgetPublished: () => {},
      publishEvents: () => {},
      turnBetweenBatches,
    };
    const actor = new IntakeActor(deps, BOT);
    const first = actor.submit(item).accepted.catch(() => "refused");
    await nextTurn();
    const second = actor.submit(item).accepted.catch(() => "refused");
    const whileCommitting = committer.calls.length;
    committer.release();
    // Registered before the actor's own turn, if it takes one: so it runs first.
    await nextTurn();
    const afterOneTurn = committer.calls.length;
    expect({ answers: await Promise.all([first, second]), whileCommitting, afterOneTurn })
      .toEqual({ answers: ["refused", "refused"], whileCommitting: 1, afterOneTurn: turnBetweenBatches ? 1 : 2 });
  });
}
