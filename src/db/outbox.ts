import type { Queryable } from "./driver.ts";
import { json } from "./driver.ts";
import { findContactsByIds } from "./contacts.ts";
import { findConversationsByIds } from "./intake.ts";
import { findMessagesByIds } from "./messages.ts";
import { runtimeMessage } from "./view.ts";

export interface DbOutboxRow {
  bot_id: string;
  update_id: number;
  /** The update as written; null when the row names its message instead (an incoming message's, sql/310). */
  payload: Record<string, unknown> | null;
  message_ref: string | null;
  created_at: Date;
}

/** An outbox row's update; `payload` null when the message it named is gone (erased): nothing to publish. */
export interface OutboxUpdate {
  update_id: number;
  payload: Record<string, unknown> | null;
}

export async function insertOutbox(db: Queryable, botId: string, updateId: number, payload: Record<string, unknown>): Promise<void> {
  await db.query(`insert into outbox (bot_id, update_id, payload) values ($1, $2, $3::text::jsonb)`, [botId, updateId, json(payload)]);
}

/** A batch's updates, one statement; payloads are JSON text. */
export async function insertOutboxRows(db: Queryable, botId: string, rows: { updateId: number; payload: string }[]): Promise<void> {
  if (rows.length === 0) return;
  await db.query(
    `insert into outbox (bot_id, update_id, payload) select $1::uuid, v.update_id, v.payload::jsonb
     from unnest($2::int8[], $3::text[]) as v(update_id, payload)`,
    [botId, rows.map((r) => r.updateId), rows.map((r) => r.payload)],
  );
}

/**
 * Rows of several bots whose updates are durable in the log: pairs (botIds[i], updateIds[i]), one
 * statement. They move to outbox_kept (sql/330): the log may still lose them (a power cut).
 */
export async function deleteOutboxPairs(db: Queryable, botIds: string[], updateIds: number[]): Promise<void> {
  if (updateIds.length === 0) return;
  await db.query(
    `with gone as (delete from outbox o using unnest($1::uuid[], $2::int8[]) as v(bot_id, update_id)
       where o.bot_id = v.bot_id and o.update_id = v.update_id returning o.bot_id, o.update_id, o.payload, o.message_ref)
     ${KEEP_GONE}`,
    [botIds, updateIds],
  );
}

/** What a published row leaves behind: itself, for OUTBOX_KEEP_MS (src/outbox/relay.ts). */
const KEEP_GONE = `insert into outbox_kept (bot_id, update_id, payload, message_ref)
  select bot_id, update_id, payload, message_ref from gone`;

/** The lowest committed, unpublished update_id in [from, to) that is not among `present`. */
export async function firstUnpublishedUpdateId(
  db: Queryable, botId: string, from: number, to: number, present: number[],
): Promise<number | undefined> {
  const rows = await db.query<{ update_id: number | null }>(
    `select min(update_id) as update_id from outbox
     where bot_id = $1 and update_id >= $2 and update_id < $3 and update_id <> all($4::int8[])`,
    [botId, from, to, present],
  );
  const id = rows[0]?.update_id;
  return id === null || id === undefined ? undefined : Number(id);
}

/** Once update N is durable in the log, so is every update of the bot below it (kept a while, as above). */
export async function deleteOutboxUpTo(db: Queryable, botId: string, uptoUpdateId: number): Promise<void> {
  await db.query(
    `with gone as (delete from outbox where bot_id = $1 and update_id <= $2 returning bot_id, update_id, payload, message_ref) ${KEEP_GONE}`,
    [botId, uptoUpdateId],
  );
}

/** Kept rows older than `before`: NATS has flushed them to disk since (sql/330). */
export async function forgetKeptBefore(db: Queryable, before: Date): Promise<void> {
  await db.query(`delete from outbox_kept where kept_at < $1`, [before]);
}

/** A bot's kept updates among `updateIds`, built as the relay builds them (null payload: its message is gone). */
export async function listKeptUpdates(db: Queryable, botId: string, updateIds: number[]): Promise<OutboxUpdate[]> {
  const rows = await db.query<DbOutboxRow>(
    `select bot_id, update_id, payload, message_ref, kept_at as created_at from outbox_kept
     where bot_id = $1 and update_id = any($2::int8[]) order by update_id`,
    [botId, updateIds],
  );
  return outboxUpdates(db, rows);
}

/**
 * Each bot's kept updates above its `held` update_id, lowest first, at most `limitPerBot` each:
 * one pass over the kept rows (no index: sql/330) however many bots lost a tail.
 */
export async function listKeptUpdatesAbove(
  db: Queryable, bots: { botId: string; held: number }[], limitPerBot: number,
): Promise<Map<string, OutboxUpdate[]>> {
  const byBot = new Map<string, OutboxUpdate[]>();
  if (bots.length === 0) return byBot;
  const rows = await db.query<DbOutboxRow>(
    `select bot_id, update_id, payload, message_ref, created_at from (
       select k.bot_id, k.update_id, k.payload, k.message_ref, k.kept_at as created_at,
              row_number() over (partition by k.bot_id order by k.update_id) as nth
       from outbox_kept k join unnest($1::uuid[], $2::int8[]) as h(bot_id, held) on k.bot_id = h.bot_id and k.update_id > h.held
     ) above where nth <= $3 order by bot_id, update_id`,
    [bots.map((b) => b.botId), bots.map((b) => b.held), limitPerBot],
  );
  const updates = await outboxUpdates(db, rows);
  rows.forEach((row, i) => {
    const list = byBot.get(row.bot_id) ?? [];
    list.push(updates[i]!);
    byBot.set(row.bot_id, list);
  });
  return byBot;
}

/** Every bot with kept rows, with the highest kept update_id. */
export async function listKeptBots(db: Queryable): Promise<{ bot_id: string; highest: number }[]> {
  const rows = await db.query<{ bot_id: string; highest: string | number }>(`select bot_id, max(update_id) as highest from outbox_kept group by bot_id`);
  return rows.map((r) => ({ bot_id: r.bot_id, highest: Number(r.highest) }));
}

/** The NATS server this deployment last looked for lost updates on (sql/330); undefined: none yet. */
export async function natsServerSeen(db: Queryable): Promise<string | undefined> {
  const rows = await db.query<{ server_id: string }>(`select server_id from nats_server_seen where id = 1`);
  return rows[0]?.server_id;
}

export async function recordNatsServerSeen(db: Queryable, serverId: string): Promise<void> {
  await db.query(
    `insert into nats_server_seen (id, server_id) values (1, $1) on conflict (id) do update set server_id = excluded.server_id, seen_at = now()`,
    [serverId],
  );
}

export interface DbStaleOutboxBot {
  bot_id: string;
  /** The bot's highest stale update_id: publishing up to it publishes everything below first. */
  upto: number;
}

/** Bots with rows older than `olderThan`: left by a crash between commit and publish, or an outage. */
export async function listStaleOutboxBots(db: Queryable, olderThan: Date, limit: number): Promise<DbStaleOutboxBot[]> {
  return db.query<DbStaleOutboxBot>(
    `select bot_id, max(update_id) as upto from outbox where created_at < $1
     group by bot_id order by min(created_at) limit $2`,
    [olderThan, limit],
  );
}

/**
 * A bot's committed, not yet published updates up to `uptoUpdateId`, lowest first. A row that
 * names its message gets the update built from the message as stored, as the intake built it
 * (db/view.ts runtimeMessage): its sender as stored now, which is how the bot would see them.
 */
export async function listBotOutboxUpTo(db: Queryable, botId: string, uptoUpdateId: number, limit: number): Promise<OutboxUpdate[]> {
  const rows = await db.query<DbOutboxRow>(
    `select bot_id, update_id, payload, message_ref, created_at from outbox where bot_id = $1 and update_id <= $2 order by update_id limit $3`,
    [botId, uptoUpdateId, limit],
  );
  return outboxUpdates(db, rows);
}

/** Each row's update: its payload, or the update built from the message it names. */
async function outboxUpdates(db: Queryable, rows: DbOutboxRow[]): Promise<OutboxUpdate[]> {
  const named = rows.flatMap((r) => (r.payload === null && r.message_ref !== null ? [r.message_ref] : []));
  const stored = await findMessagesByIds(db, named);
  const distinct = (ids: (string | null)[]) => [...new Set(ids.filter((id): id is string => id !== null))];
  const [chats, senders] = await Promise.all([
    findConversationsByIds(db, distinct(stored.map((m) => m.conversation_id))),
    findContactsByIds(db, distinct(stored.map((m) => m.contact_id))),
  ]);
  const messages = new Map(stored.map((m) => [m.id, m]));
  const conversations = new Map(chats.map((c) => [c.id, c]));
  const contacts = new Map(senders.map((k) => [k.id, k]));
  return rows.map((r) => {
    if (r.payload !== null) return { update_id: r.update_id, payload: r.payload };
    const message = r.message_ref === null ? undefined : messages.get(r.message_ref);
    const conversation = message && conversations.get(message.conversation_id);
    if (!message || !conversation) return { update_id: r.update_id, payload: null };
    const contact = message.contact_id === null ? undefined : contacts.get(message.contact_id);
    return { update_id: r.update_id, payload: { update_id: r.update_id, message: runtimeMessage(message, conversation, contact) } };
  });
}
