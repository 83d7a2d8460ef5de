// When the intake's look-ups may run on plans kept per connection (actors/lookup-plan-gate.ts):
// only once the statistics make the unique (bot, key) probe the plan's obvious choice. A
// database of its own: the shared test database's many small bots would move the figures.
import { afterAll, expect, setDefaultTimeout, test } from "bun:test";
import { KEPT_LOOKUP_PLAN_STATISTICS, LookupPlanGate } from "../../src/actors/lookup-plan-gate.ts";
import { intakeTablesAnalyzed } from "../../src/db/intake-plans.ts";
import { migrate } from "../../src/db/migrate.ts";
import { MODE } from "../support/harness.ts";
import { freshDatabase } from "../support/fresh-db.ts";
import { seedChats } from "../support/seed-chats.ts";

/** A fresh database and a thousand bots' rows take seconds on a busy machine. */
setDefaultTimeout(60_000);

const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

test(`the look-ups keep their plans only from ${KEPT_LOOKUP_PLAN_STATISTICS.rows} rows and ${KEPT_LOOKUP_PLAN_STATISTICS.rowsPerBot} per bot analysed; never on PGlite (${MODE})`, async () => {
  const db = await freshDatabase(cleanups, "plan_gate");
  await migrate(db);
  const gate = async () => new LookupPlanGate(db).allowed();
  // Fresh: never analysed.
  expect(await gate()).toBe(false);
  // A thousand bots with one chat each: enough rows, but a bot-only probe ties with the unique one.
  await seedChats(db, 1_000, 1);
  const oneChatEach = { gate: await gate(), rowsAlone: await intakeTablesAnalyzed(db, { rows: 1_000, rowsPerBot: 0 }) };
  // One more bot with 20,000 chats: 21 rows per bot.
  await seedChats(db, 1, 20_000);
  expect({ oneChatEach, busier: await gate() })
    .toEqual(MODE === "production"
      ? { oneChatEach: { gate: false, rowsAlone: true }, busier: true }
      : { oneChatEach: { gate: false, rowsAlone: true }, busier: false });
});
