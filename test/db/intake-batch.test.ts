// The group commit's one-statement write (db/intake.ts writeIncomingBatch): what it stores and
// returns, and the plan PostgreSQL keeps for it. Its text never varies, so after a few runs a
// connection keeps ONE generic plan for it, made with whatever the tables held then: a part
// that reads a table (a touch of known conversations did) would scan that table for good.
import { expect, test } from "bun:test";
import { newRowId } from "../../src/core/ids.ts";
import type { Queryable } from "../../src/db/driver.ts";
import { writeIncomingBatch, type IncomingBatchWrite } from "../../src/db/intake.ts";
import { sharedDb } from "../support/harness.ts";

const NIL = "00000000-0000-0000-0000-000000000000";
const emptyBatch = (botId: string, ownerId: string): IncomingBatchWrite => ({
  botId, ownerId, counters: { last_message_id: 0, last_update_id: 0, last_conversation_number: 0, last_contact_number: 0 },
  contacts: [], conversations: [], messages: [], outbox: [],
});

/** The statement's text and parameter count, as the module sends it. */
async function statement(): Promise<{ text: string; params: number }> {
  let text = "";
  let params = 0;
  const capture: Queryable = {
    async query<T>(t: string, p: unknown[] = []) {
      text = t;
      params = p.length;
      return [{ contacts: null, conversations: null }] as T[];
    },
    async exec() {},
  };
  await writeIncomingBatch(capture, emptyBatch(NIL, NIL));
  return { text, params };
}

test("the plan kept for a batch's write reads no table but the bot's row", async () => {
  const db = await sharedDb();
  const { text, params } = await statement();
  const name = `intake_write_${crypto.randomUUID().replace(/-/g, "")}`;
  const args = Array.from({ length: params }, (_, i) => (i < 2 ? `'${NIL}'` : i < 6 ? "0" : "'{}'")).join(", ");
  const plan = await db.transaction(async (tx) => {
    await tx.exec(`prepare ${name} as ${text}`);
    try {
      await tx.exec("set local plan_cache_mode = force_generic_plan");
      return (await tx.query<Record<string, string>>(`explain execute ${name}(${args})`)).map((row) => Object.values(row)[0]).join("\n");
    } finally {
      await tx.exec(`deallocate ${name}`);
    }
  });
  expect(plan).toContain("Insert on messages");
  expect(plan).not.toMatch(/Scan (using \S+ )?on (conversations|messages|contacts|outbox)\b/);
});

test("a batch's write stores contact, conversation, message and outbox row, and returns them with real dates", async () => {
  const db = await sharedDb();
  const stamp = crypto.randomUUID().replace(/-/g, "");
  const [user] = await db.query<{ id: string }>(`insert into users (email, password_hash) values ($1, 'x') returning id`, [`batch-${stamp}@example.com`]);
  const [bot] = await db.query<{ id: string }>(
    `insert into bots (owner_id, name, username, token_hash, token_encrypted, widget_key, integration_key)
     values ($1, 'batch', $2, $2, 'x', $2, $2) returning id`,
    [user!.id, `batch_${stamp}`],
  );
  const [contactId, conversationId, messageId] = [newRowId(), newRowId(), newRowId()];
  const at = new Date(Date.now() - 60_000);
  const written = await db.transaction((tx) => writeIncomingBatch(tx, {
    ...emptyBatch(bot!.id, user!.id),
    counters: { last_message_id: 1, last_update_id: 1, last_conversation_number: 1, last_contact_number: 1 },
    contacts: [{ id: contactId, number: 1, key: "ext:42", externalUserId: "42", firstName: "Ada", lastName: null, name: null, email: null, phone: null }],
    conversations: [{ id: conversationId, number: 1, chatId: "chat-1", channel: "api", contactId, messageCount: 1, lastMessageId: messageId, latestAt: at }],
    messages: [{ id: messageId, conversationId, messageId: 1, contactId, fromId: "42", text: "hello", metadata: "{}", clientMessageId: "c1", createdAt: at, attachments: "[]" }],
    outbox: [{ updateId: 1, payload: `{"update_id":1}` }],
  }));
  expect(written.contacts.map((c) => [c.id, c.first_name, c.created_at instanceof Date])).toEqual([[contactId, "Ada", true]]);
  const [conversation] = written.conversations;
  expect(conversation).toMatchObject({ id: conversationId, chat_id: "chat-1", message_count: 1, last_message_id: messageId, status: "new", handed_over_at: null });
  for (const d of [conversation!.last_message_at, conversation!.created_at, conversation!.updated_at]) expect(d).toBeInstanceOf(Date);
  expect(conversation!.last_message_at.getTime()).toBeGreaterThanOrEqual(at.getTime());
  const [counts] = await db.query<{ messages: number; outbox: number; last_message_id: number }>(
    `select (select count(*)::int from messages where conversation_id = $2) as messages,
            (select count(*)::int from outbox where bot_id = $1) as outbox,
            (select last_message_id from bots where id = $1) as last_message_id`,
    [bot!.id, conversationId],
  );
  expect(counts).toEqual({ messages: 1, outbox: 1, last_message_id: 1 });
  await db.query(`delete from bots where id = $1`, [bot!.id]);
  await db.query(`delete from users where id = $1`, [user!.id]);
});
