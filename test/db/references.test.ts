// The references sql/290 checks once per statement instead of with foreign keys: what a row
// names must exist (23503 otherwise, nothing written), deletes cascade or set null as the keys
// did, and a writer's references hold against a concurrent delete (production: two sessions).
import { afterAll, describe, expect, test } from "bun:test";
import type { Db, Queryable } from "../../src/db/driver.ts";
import { openPostgres } from "../../src/db/postgres.ts";
import { MODE, sharedDb } from "../support/harness.ts";
import { seedChats } from "../support/seed-chats.ts";

const count = async (db: Db, sql: string, params: unknown[]) => Number((await db.query<{ n: string }>(`select count(*)::text as n from ${sql}`, params))[0]!.n);

/** A bot with three chats (contact, conversation, message each); its ids. */
async function seededBot(db: Db) {
  const [botId] = await seedChats(db, 1, 3);
  const [bot] = await db.query<{ owner_id: string }>(`select owner_id from bots where id = $1`, [botId]);
  const conversations = await db.query<{ id: string; contact_id: string }>(`select id, contact_id from conversations where bot_id = $1 order by number`, [botId]);
  return { botId: botId!, ownerId: bot!.owner_id, conversations };
}

const insertMessage = (db: Pick<Db, "query">, bot: { botId: string; ownerId: string }, conversationId: string, contactId: string | null, messageId: number) =>
  db.query(`insert into messages (bot_id, owner_id, conversation_id, message_id, direction, sender, contact_id, text) values ($1, $2, $3, $4, 'in', 'user', $5, 'hi')`,
    [bot.botId, bot.ownerId, conversationId, messageId, contactId]);

const refusedAsForeignKey = async (write: Promise<unknown>) => {
  const err = await write.then(() => undefined, (e: unknown) => e as { code?: string });
  expect(err?.code).toBe("23503");
};

describe("references checked per statement", () => {
  test("a message naming a missing conversation or contact is refused, and its whole statement writes nothing", async () => {
    const db = await sharedDb();
    const bot = await seededBot(db);
    const [first] = bot.conversations;
    await refusedAsForeignKey(insertMessage(db, bot, crypto.randomUUID(), null, 100));
    await refusedAsForeignKey(insertMessage(db, bot, first!.id, crypto.randomUUID(), 101));
    // One good row beside one bad: the statement fails whole.
    await refusedAsForeignKey(db.query(
      `insert into messages (bot_id, owner_id, conversation_id, message_id, direction, sender, text)
       select $1, $2, c, 102 + n, 'in', 'user', 'hi' from unnest($3::uuid[]) with ordinality as v(c, n)`,
      [bot.botId, bot.ownerId, [first!.id, crypto.randomUUID()]],
    ));
    expect(await count(db, "messages where bot_id = $1 and message_id >= 100", [bot.botId])).toBe(0);
    await insertMessage(db, bot, first!.id, first!.contact_id, 100);
    expect(await count(db, "messages where bot_id = $1 and message_id = 100", [bot.botId])).toBe(1);
  });

  test("conversations, contacts, outbox and report rows need their bot or conversation", async () => {
    const db = await sharedDb();
    const bot = await seededBot(db);
    const missingBot = crypto.randomUUID();
    await refusedAsForeignKey(db.query(`insert into conversations (bot_id, owner_id, number, chat_id, channel) values ($1, $2, 99, 'x', 'api')`, [missingBot, bot.ownerId]));
    await refusedAsForeignKey(db.query(`insert into conversations (bot_id, owner_id, number, chat_id, channel, contact_id) values ($1, $2, 99, 'x', 'api', $3)`,
      [bot.botId, bot.ownerId, crypto.randomUUID()]));
    await refusedAsForeignKey(db.query(`insert into contacts (bot_id, owner_id, number, contact_key) values ($1, $2, 99, 'k99')`, [missingBot, bot.ownerId]));
    await refusedAsForeignKey(db.query(`insert into outbox (bot_id, update_id, payload) values ($1, 1, '{}')`, [missingBot]));
    await refusedAsForeignKey(db.query(`insert into report_conversations (conversation_id, bot_id, channel, created_at) values ($1, $2, 'api', now())`,
      [crypto.randomUUID(), bot.botId]));
    expect(await count(db, "conversations where bot_id = $1", [bot.botId])).toBe(3);
  });

  test("an update that points a row at a missing one is refused; one that points it at a real one is not", async () => {
    const db = await sharedDb();
    const bot = await seededBot(db);
    const [first, second] = bot.conversations;
    await refusedAsForeignKey(db.query(`update messages set contact_id = $2 where conversation_id = $1`, [first!.id, crypto.randomUUID()]));
    await refusedAsForeignKey(db.query(`update conversations set contact_id = $2 where id = $1`, [first!.id, crypto.randomUUID()]));
    await refusedAsForeignKey(db.query(`update messages set conversation_id = $2 where conversation_id = $1`, [first!.id, crypto.randomUUID()]));
    await refusedAsForeignKey(db.query(`update conversations set bot_id = $2 where id = $1`, [first!.id, crypto.randomUUID()]));
    await refusedAsForeignKey(db.query(`update bots set id = $2 where id = $1`, [bot.botId, crypto.randomUUID()]));
    await db.query(`update conversations set contact_id = $2 where id = $1`, [first!.id, second!.contact_id]);
    expect((await db.query<{ contact_id: string }>(`select contact_id from conversations where id = $1`, [first!.id]))[0]!.contact_id).toBe(second!.contact_id);
  });

  test("deletes cascade as the keys did: a conversation takes its messages and report row, a contact is unset, a bot takes everything", async () => {
    const db = await sharedDb();
    const bot = await seededBot(db);
    const [first, second, third] = bot.conversations;
    await db.query(`insert into report_conversations (conversation_id, bot_id, channel, created_at) values ($1, $2, 'api', now()) on conflict do nothing`, [first!.id, bot.botId]);
    await db.query(`insert into outbox (bot_id, update_id, payload) values ($1, 1, '{}')`, [bot.botId]);
    await db.query(`update messages m set contact_id = c.contact_id from conversations c where c.id = m.conversation_id and c.bot_id = $1`, [bot.botId]);

    await db.query(`delete from conversations where id = $1`, [first!.id]);
    expect(await count(db, "messages where conversation_id = $1", [first!.id])).toBe(0);
    expect(await count(db, "report_conversations where conversation_id = $1", [first!.id])).toBe(0);
    expect(await count(db, "messages where conversation_id = $1", [second!.id])).toBe(1);

    await db.query(`delete from contacts where id = $1`, [second!.contact_id]);
    expect(await db.query(`select contact_id from conversations where id = $1`, [second!.id])).toEqual([{ contact_id: null }]);
    expect(await db.query(`select contact_id from messages where conversation_id = $1`, [second!.id])).toEqual([{ contact_id: null }]);
    expect(await count(db, "messages where conversation_id = $1 and contact_id is not null", [third!.id])).toBe(1);

    await db.query(`delete from bots where id = $1`, [bot.botId]);
    for (const table of ["conversations", "contacts", "messages", "outbox", "report_conversations"]) {
      expect(`${table}: ${await count(db, `${table} where bot_id = $1`, [bot.botId])}`).toBe(`${table}: 0`);
    }
  });
});

// Two sessions at once: only PostgreSQL has them (PGlite runs one statement at a time).
describe.skipIf(MODE !== "production")("references against a concurrent delete", () => {
  const other = { db: undefined as Db | undefined };
  afterAll(() => other.db?.close());
  const otherSession = async () => (other.db ??= await openPostgres(process.env.DATABASE_URL!));

  /** Runs `statement` in a transaction of `db` and holds it open, uncommitted, until released. */
  async function heldOpen(db: Db, statement: (tx: Queryable) => Promise<unknown>) {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let ran!: () => void;
    const statementDone = new Promise<void>((resolve) => (ran = resolve));
    const committed = db.transaction(async (tx) => {
      await statement(tx);
      ran();
      await held;
    });
    // A statement that fails ends the transaction: say so at once rather than wait for the timeout.
    await Promise.race([statementDone, committed.then(() => Promise.reject(new Error("the transaction ended before it was held")))]);
    return { release, committed };
  }

  test("a conversation deleted while a message naming it is uncommitted waits, then takes the message with it", async () => {
    const db = await sharedDb();
    const bot = await seededBot(db);
    const [first] = bot.conversations;
    const writer = await heldOpen(db, (tx) => insertMessage(tx, bot, first!.id, null, 200));
    let deleted = false;
    const deleting = (await otherSession()).query(`delete from conversations where id = $1`, [first!.id]).then(() => (deleted = true));
    await Bun.sleep(300);
    expect(deleted).toBe(false);
    writer.release();
    await writer.committed;
    await deleting;
    expect(await count(db, "messages where conversation_id = $1", [first!.id])).toBe(0);
  });

  test("a message naming a conversation whose delete is uncommitted waits, then is refused", async () => {
    const db = await sharedDb();
    const bot = await seededBot(db);
    const [first] = bot.conversations;
    const deleter = await heldOpen(await otherSession(), (tx) => tx.query(`delete from conversations where id = $1`, [first!.id]));
    let settled = false;
    const writing = insertMessage(db, bot, first!.id, null, 201).finally(() => (settled = true));
    await Bun.sleep(300);
    expect(settled).toBe(false);
    deleter.release();
    await deleter.committed;
    await refusedAsForeignKey(writing);
    expect(await count(db, "messages where conversation_id = $1", [first!.id])).toBe(0);
  });
});
