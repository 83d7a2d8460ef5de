// The group commit's one-statement write (db/intake-write.ts writeIncomingBatch): what it stores
// and returns, for one bot or several, and what it refuses. The plans kept for it are
// test/db/intake-plans.test.ts's.
import { expect, test } from "bun:test";
import { newRowId } from "../../src/core/ids.ts";
import type { Queryable } from "../../src/db/driver.ts";
import { writeIncomingBatch, type BotBatchWrite } from "../../src/db/intake-write.ts";
import { isStaleIntakePlan } from "../../src/db/intake-guard.ts";
import { listBotOutboxUpTo } from "../../src/db/outbox.ts";
import type { DbConversation } from "../../src/db/conversations.ts";
import { sharedDb } from "../support/harness.ts";
import { emptyBatch } from "../support/intake-batch.ts";

/** A user and one bot of theirs, inserted as rows (no API): what the statements here write for. */
async function userWithBot(db: Queryable, tag: string): Promise<{ stamp: string; user: { id: string }; bot: { id: string } }> {
  const stamp = crypto.randomUUID().replace(/-/g, "");
  const [user] = await db.query<{ id: string }>(`insert into users (email, password_hash) values ($1, 'x') returning id`, [`${tag}-${stamp}@example.com`]);
  const [bot] = await db.query<{ id: string }>(
    `insert into bots (owner_id, name, username, token_hash, token_encrypted, widget_key, integration_key)
     values ($1, $3, $2, $2, 'x', $2, $2) returning id`,
    [user!.id, `${tag}_${stamp}`, tag],
  );
  return { stamp, user: user!, bot: bot! };
}

test("a batch's write stores contact, conversation, message and outbox row, and returns them with real dates", async () => {
  const db = await sharedDb();
  const { stamp, user, bot } = await userWithBot(db, "batch");
  const [contactId, conversationId, messageId] = [newRowId(), newRowId(), newRowId()];
  const at = new Date(Date.now() - 60_000);
  const written = await db.transaction((tx) => writeIncomingBatch(tx, [{
    ...emptyBatch(bot!.id, user!.id),
    counters: { last_message_id: 1, last_update_id: 1, last_conversation_number: 1, last_contact_number: 1 },
    contacts: [{ id: contactId, number: 1, key: "ext:42", externalUserId: "42", firstName: "Ada", lastName: null, name: null, email: null, phone: null }],
    conversations: [{ id: conversationId, number: 1, chatId: "chat-1", channel: "api", contactId, messageCount: 1, lastMessageId: messageId, latestAt: at, earliestAt: at }],
    messages: [{ id: messageId, conversationId, messageId: 1, contactId, fromId: "42", text: "hello", metadata: {}, clientMessageId: "c1", createdAt: at, attachments: [], channel: "api" }],
    outbox: [{ updateId: 1, messageRef: messageId }],
  }]));
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

test("a batch planned from state that changed writes nothing: the touch, the message and the counters roll back with the refusal", async () => {
  const db = await sharedDb();
  const { user, bot } = await userWithBot(db, "stale");
  const [contactId, conversationId] = [newRowId(), newRowId()];
  const at = new Date();
  const message = (n: number) => ({
    id: newRowId(), conversationId, messageId: n, contactId, fromId: null, text: `m${n}`, metadata: {}, clientMessageId: null, createdAt: at,
    attachments: [], channel: "api",
  });
  const first = message(1);
  const created = await db.transaction((tx) => writeIncomingBatch(tx, [{
    ...emptyBatch(bot!.id, user!.id),
    counters: { last_message_id: 1, last_update_id: 0, last_conversation_number: 1, last_contact_number: 1 },
    contacts: [{ id: contactId, number: 1, key: "ext:1", externalUserId: "1", firstName: null, lastName: null, name: null, email: null, phone: null }],
    conversations: [{ id: conversationId, number: 1, chatId: "c", channel: "api", contactId, messageCount: 1, lastMessageId: first.id, latestAt: at, earliestAt: at }],
    messages: [first],
  }]));
  const [conversation, contact] = [created.conversations[0]!, created.contacts[0]!];
  await db.query(`update conversations set status = 'closed' where id = $1`, [conversationId]);
  const second = message(2);
  const next = (planned: Pick<DbConversation, "status">) => db.transaction((tx) => writeIncomingBatch(tx, [{
    ...emptyBatch(bot!.id, user!.id), base: { last_message_id: 1, last_update_id: 0, last_conversation_number: 1, last_contact_number: 1 },
    counters: { last_message_id: 2, last_update_id: 0, last_conversation_number: 1, last_contact_number: 1 }, messages: [second],
    touches: [{ id: conversationId, added: 1, lastMessageId: second.id, latestAt: at, earliestAt: at, contactId }],
  }], { conversations: [{ ...conversation, ...planned }], contacts: [contact] }));
  const stored = async () => (await db.query<{ status: string; message_count: number; messages: number; last_message_id: number }>(
    `select c.status::text, c.message_count, (select count(*)::int from messages m where m.conversation_id = c.id) as messages,
            (select last_message_id from bots where id = c.bot_id) as last_message_id
     from conversations c where c.id = $1`, [conversationId]))[0];

  // Planned while the chat was still new: refused, nothing of the batch stays.
  const refusal = await next({ status: "new" }).then(() => undefined, (err: unknown) => err);
  expect({ stale: isStaleIntakePlan(refusal), stored: await stored() })
    .toEqual({ stale: true, stored: { status: "closed", message_count: 1, messages: 1, last_message_id: 1 } });
  // Planned from what is stored: written, and the message reopens the chat.
  const written = await next({ status: "closed" });
  expect(written.touched.map((c) => [c.id, c.status, c.message_count])).toEqual([[conversationId, "open", 2]]);
  expect(await stored()).toEqual({ status: "open", message_count: 2, messages: 2, last_message_id: 2 });
});

test("a batch writes its report roll-up once: first incoming message and per-quarter counts, as the triggers would", async () => {
  const db = await sharedDb();
  const { stamp, user, bot } = await userWithBot(db, "rollup");
  const contactId = newRowId();
  const [webChat, apiChat] = [newRowId(), newRowId()];
  // Client times out of order, across two quarter hours: 10:20 (web), 10:05 (web), 10:10 (api).
  const at = (minute: number) => new Date(Date.UTC(2026, 2, 2, 10, minute, 30));
  const message = (conversationId: string, n: number, createdAt: Date, channel: string) => ({
    id: newRowId(), conversationId, messageId: n, contactId, fromId: null, text: `m${n}`, metadata: {}, clientMessageId: null, createdAt,
    attachments: [], channel,
  });
  const first = [message(webChat, 1, at(20), "web"), message(webChat, 2, at(5), "web"), message(apiChat, 3, at(10), "api")];
  await db.transaction((tx) => writeIncomingBatch(tx, [{
    ...emptyBatch(bot!.id, user!.id),
    counters: { last_message_id: 3, last_update_id: 0, last_conversation_number: 2, last_contact_number: 1 },
    contacts: [{ id: contactId, number: 1, key: "ext:7", externalUserId: "7", firstName: null, lastName: null, name: null, email: null, phone: null }],
    conversations: [
      { id: webChat, number: 1, chatId: "w", channel: "web", contactId, messageCount: 2, lastMessageId: first[1]!.id, latestAt: at(20), earliestAt: at(5) },
      { id: apiChat, number: 2, chatId: "a", channel: "api", contactId, messageCount: 1, lastMessageId: first[2]!.id, latestAt: at(10), earliestAt: at(10) },
    ],
    messages: first,
  }]));
  // A second batch: the api chat again, earlier than anything it had (a client clock behind).
  const second = [message(apiChat, 4, at(1), "api")];
  await db.transaction((tx) => writeIncomingBatch(tx, [{
    ...emptyBatch(bot!.id, user!.id), base: { last_message_id: 3, last_update_id: 0, last_conversation_number: 2, last_contact_number: 1 },
    counters: { last_message_id: 4, last_update_id: 0, last_conversation_number: 2, last_contact_number: 1 }, messages: second,
    touches: [{ id: apiChat, added: 1, lastMessageId: second[0]!.id, latestAt: at(1), earliestAt: at(1), contactId }],
  }]));

  const facts = await db.query<{ conversation_id: string; channel: string; first_in_at: Date; first_response_at: Date | null }>(
    `select conversation_id, channel, first_in_at, first_response_at from report_conversations where bot_id = $1 order by channel`, [bot!.id]);
  expect(facts.map((f) => [f.conversation_id, f.channel, new Date(f.first_in_at).toISOString(), f.first_response_at])).toEqual([
    [apiChat, "api", at(1).toISOString(), null],
    [webChat, "web", at(5).toISOString(), null],
  ]);
  const quarters = await db.query<{ channel: string; quarter: Date; incoming: number }>(
    `select channel, quarter, incoming from report_incoming_quarters where bot_id = $1 order by quarter, channel`, [bot!.id]);
  expect(quarters.map((q) => [q.channel, new Date(q.quarter).toISOString().slice(11, 16), q.incoming])).toEqual([
    ["api", "10:00", 2], ["web", "10:00", 1], ["web", "10:15", 1],
  ]);
  // After the batch's transaction, another writer's messages are rolled up by the triggers again.
  await db.query(
    `insert into messages (bot_id, owner_id, conversation_id, message_id, direction, sender, text, created_at) values ($1, $2, $3, 5, 'in', 'user', 'x', $4)`,
    [bot!.id, user!.id, webChat, at(6).toISOString()]);
  const [web] = await db.query<{ incoming: number }>(`select incoming from report_incoming_quarters where bot_id = $1 and channel = 'web' and quarter = $2`,
    [bot!.id, new Date(Date.UTC(2026, 2, 2, 10, 0)).toISOString()]);
  expect(web!.incoming).toBe(2);
  await db.query(`delete from bots where id = $1`, [bot!.id]);
  await db.query(`delete from users where id = $1`, [user!.id]);
});

test("one write carries several bots' batches: each bot gets its own contact, conversation, message, counters, outbox row and report count", async () => {
  const db = await sharedDb();
  const stamp = crypto.randomUUID().replace(/-/g, "");
  const [user] = await db.query<{ id: string }>(`insert into users (email, password_hash) values ($1, 'x') returning id`, [`multi-${stamp}@example.com`]);
  const bots = await db.query<{ id: string }>(
    `insert into bots (owner_id, name, username, token_hash, token_encrypted, widget_key, integration_key)
     select $1, 'multi', u, u, 'x', u, u from unnest(array[$2, $3]) as u returning id`,
    [user!.id, `multi_a_${stamp}`, `multi_b_${stamp}`],
  );
  const at = new Date(Date.UTC(2026, 2, 2, 10, 20));
  // The same chat id and sender key in both bots: a bot's rows must never be another's.
  const batch = (botId: string, n: number): BotBatchWrite => {
    const [contactId, conversationId, messageId] = [newRowId(), newRowId(), newRowId()];
    return {
      ...emptyBatch(botId, user!.id),
      counters: { last_message_id: n, last_update_id: n, last_conversation_number: 1, last_contact_number: 1 },
      contacts: [{ id: contactId, number: 1, key: "ext:1", externalUserId: "1", firstName: `bot${n}`, lastName: null, name: null, email: null, phone: null }],
      conversations: [{ id: conversationId, number: 1, chatId: "same-chat", channel: "api", contactId, messageCount: 1, lastMessageId: messageId, latestAt: at, earliestAt: at }],
      messages: [{ id: messageId, conversationId, messageId: n, contactId, fromId: "1", text: `to bot ${n}`, metadata: {}, clientMessageId: "c", createdAt: at, attachments: [], channel: "api" }],
      outbox: [{ updateId: n, messageRef: messageId }],
    };
  };
  const written = await db.transaction((tx) => writeIncomingBatch(tx, [batch(bots[0]!.id, 7), batch(bots[1]!.id, 9)]));
  expect(written.contacts.map((c) => [c.bot_id, c.first_name]).sort()).toEqual([[bots[0]!.id, "bot7"], [bots[1]!.id, "bot9"]].sort());
  expect(written.conversations.map((c) => [c.bot_id, c.chat_id]).sort()).toEqual([[bots[0]!.id, "same-chat"], [bots[1]!.id, "same-chat"]].sort());
  const rows = await db.query<{ id: string; last_message_id: number; last_update_id: number; text: string; outbox: number; incoming: number }>(
    `select b.id, b.last_message_id::int, b.last_update_id::int,
            (select string_agg(text, ',') from messages where bot_id = b.id) as text,
            (select count(*)::int from outbox where bot_id = b.id and update_id = b.last_update_id) as outbox,
            (select sum(incoming)::int from report_incoming_quarters where bot_id = b.id) as incoming
     from bots b where b.id = any($1::uuid[])`,
    [bots.map((b) => b.id)],
  );
  const byId = new Map(rows.map((r) => [r.id, r]));
  expect(byId.get(bots[0]!.id)).toEqual({ id: bots[0]!.id, last_message_id: 7, last_update_id: 7, text: "to bot 7", outbox: 1, incoming: 1 });
  expect(byId.get(bots[1]!.id)).toEqual({ id: bots[1]!.id, last_message_id: 9, last_update_id: 9, text: "to bot 9", outbox: 1, incoming: 1 });
  await db.query(`delete from bots where id = any($1::uuid[])`, [bots.map((b) => b.id)]);
  await db.query(`delete from users where id = $1`, [user!.id]);
});

test("a batch planned from counters another writer has moved since is numbered after that writer: rows, the relayed update and shifts", async () => {
  const db = await sharedDb();
  const { user, bot } = await userWithBot(db, "shifted");
  // Another writer took message numbers 1–3 and update numbers 1–2 after the plan read zeros.
  await db.query(`update bots set last_message_id = 3, last_update_id = 2 where id = $1`, [bot.id]);
  const [contactId, conversationId, messageId] = [newRowId(), newRowId(), newRowId()];
  const at = new Date();
  const written = await db.transaction((tx) => writeIncomingBatch(tx, [{
    ...emptyBatch(bot.id, user.id),
    counters: { last_message_id: 1, last_update_id: 1, last_conversation_number: 1, last_contact_number: 1 },
    contacts: [{ id: contactId, number: 1, key: "k", externalUserId: null, firstName: null, lastName: null, name: null, email: null, phone: null }],
    conversations: [{ id: conversationId, number: 1, chatId: "c", channel: "api", contactId, messageCount: 1, lastMessageId: messageId, latestAt: at, earliestAt: at }],
    messages: [{ id: messageId, conversationId, messageId: 1, contactId, fromId: null, text: "hi", metadata: {}, clientMessageId: null, createdAt: at, attachments: [], channel: "api" }],
    outbox: [{ updateId: 1, messageRef: messageId }],
  }]));
  expect(written.shifts.get(bot.id)).toEqual({ messages: 3, updates: 2 });
  const [row] = await db.query<{ counters: string; message_id: string }>(
    `select (select last_message_id || '/' || last_update_id || '/' || last_conversation_number || '/' || last_contact_number from bots where id = $1) as counters,
       (select message_id::text from messages where id = $2) as message_id`,
    [bot.id, messageId]);
  expect(row).toEqual({ counters: "4/3/1/1", message_id: "4" });
  // What the relay would publish after a crash: the update as the intake would have, with the moved numbers.
  expect(await listBotOutboxUpTo(db, bot.id, 100, 10)).toEqual([{
    update_id: 3,
    payload: {
      update_id: 3,
      message: { message_id: "4", date: Math.floor(at.getTime() / 1000), chat: { id: "c", type: "private", channel: "api" }, from: { id: contactId, first_name: null, last_name: null }, text: "hi" },
    },
  }]);
  // Planned under the lock (from the stored counters), nothing moves and no shift is reported.
  const again = await db.transaction((tx) => writeIncomingBatch(tx, [{
    ...emptyBatch(bot.id, user.id), base: { last_message_id: 4, last_update_id: 3, last_conversation_number: 1, last_contact_number: 1 },
    counters: { last_message_id: 4, last_update_id: 3, last_conversation_number: 1, last_contact_number: 1 },
  }]));
  expect(again.shifts.size).toBe(0);
  await db.query(`delete from bots where id = $1`, [bot.id]);
  await db.query(`delete from users where id = $1`, [user.id]);
});
