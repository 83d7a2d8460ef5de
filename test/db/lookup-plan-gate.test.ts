// When the intake's look-ups may run on plans kept per connection (actors/lookup-plan-gate.ts):
// only once the statistics make the unique (bot, key) probe the plan's obvious choice. A
// database of its own: the shared test database's many small bots would move the figures.
import { afterAll, expect, setDefaultTimeout, test } from "bun:test";
import { KEPT_LOOKUP_PLAN_STATISTICS, LookupPlanGate } from "../../src/actors/lookup-plan-gate.ts";
import type { Db } from "../../src/db/driver.ts";
import { intakeTablesAnalyzed } from "../../src/db/intake.ts";
import { migrate } from "../../src/db/migrate.ts";
import { MODE } from "../support/harness.ts";
import { freshDatabase } from "../support/fresh-db.ts";

/** A fresh database and a thousand bots' rows take seconds on a busy machine. */
setDefaultTimeout(60_000);

const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** `bots` new bots of one user, each with `chats` chats (a contact, a conversation and a message each); then ANALYZE. */
async function seed(db: Db, bots: number, chats: number): Promise<void> {
  const tag = crypto.randomUUID().slice(0, 8);
  const [user] = await db.query<{ id: string }>(`insert into users (email, password_hash) values ($1, 'x') returning id`, [`gate-${tag}@example.com`]);
  await db.query(
    `insert into bots (owner_id, name, username, token_hash, token_encrypted, widget_key, integration_key)
     select $1, 'b', u, u, 'x', u, u from (select $2 || '_' || n as u from generate_series(1, $3::int) n) s`,
    [user!.id, `gate_${tag}`, bots],
  );
  const owned = `select id from bots where owner_id = $1`;
  await db.query(`insert into contacts (id, bot_id, owner_id, number, contact_key)
    select gen_random_uuid(), b.id, $1, n, 'k' || n from (${owned}) b, generate_series(1, $2::int) n`, [user!.id, chats]);
  await db.query(`insert into conversations (id, bot_id, owner_id, number, chat_id, channel, contact_id)
    select gen_random_uuid(), c.bot_id, $1, c.number, 'chat' || c.number, 'api', c.id from contacts c where c.owner_id = $1`, [user!.id]);
  await db.query(`insert into messages (id, bot_id, owner_id, conversation_id, message_id, direction, sender, text, client_message_id)
    select gen_random_uuid(), v.bot_id, $1, v.id, v.number, 'in', 'user', 'hello', 'c' || v.number from conversations v where v.owner_id = $1`, [user!.id]);
  await db.exec("analyze contacts; analyze conversations; analyze messages");
}

test(`the look-ups keep their plans only from ${KEPT_LOOKUP_PLAN_STATISTICS.rows} rows and ${KEPT_LOOKUP_PLAN_STATISTICS.rowsPerBot} per bot analysed; never on PGlite (${MODE})`, async () => {
  const db = await freshDatabase(cleanups, "plan_gate");
  await migrate(db);
  const gate = async () => new LookupPlanGate(db).allowed();
  // Fresh: never analysed.
  expect(await gate()).toBe(false);
  // A thousand bots with one chat each: enough rows, but a bot-only probe ties with the unique one.
  await seed(db, 1_000, 1);
  const oneChatEach = { gate: await gate(), rowsAlone: await intakeTablesAnalyzed(db, { rows: 1_000, rowsPerBot: 0 }) };
  // One more bot with 20,000 chats: 21 rows per bot.
  await seed(db, 1, 20_000);
  expect({ oneChatEach, busier: await gate() })
    .toEqual(MODE === "production"
      ? { oneChatEach: { gate: false, rowsAlone: true }, busier: true }
      : { oneChatEach: { gate: false, rowsAlone: true }, busier: false });
});
