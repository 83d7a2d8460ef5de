// SQL for the e-mail channel and platform mail (sql/150_mail.sql).
import type { Queryable } from "./driver.ts";

export interface DbMailCursor {
  uid_validity: string;
  next_uid: number;
}

export async function findMailCursor(db: Queryable, botId: string, mailbox: string): Promise<DbMailCursor | undefined> {
  const rows = await db.query<DbMailCursor>(`select uid_validity, next_uid from mail_cursors where bot_id = $1 and mailbox = $2`, [botId, mailbox]);
  return rows[0];
}

/** Moves the cursor forward only: a slower writer never moves it back. */
export async function saveMailCursor(db: Queryable, botId: string, mailbox: string, uidValidity: string, nextUid: number): Promise<void> {
  await db.query(
    `insert into mail_cursors (bot_id, mailbox, uid_validity, next_uid) values ($1, $2, $3, $4)
     on conflict (bot_id, mailbox) do update set
       next_uid = case when mail_cursors.uid_validity = excluded.uid_validity then greatest(mail_cursors.next_uid, excluded.next_uid) else excluded.next_uid end,
       uid_validity = excluded.uid_validity, updated_at = now()`,
    [botId, mailbox, uidValidity, nextUid],
  );
}

export interface DbMailThread {
  conversation_id: string;
  message_id: string | null;
  direction: "in" | "out";
  chat_id: string;
}

/** The conversations (newest first) that already hold any of these Message-IDs. */
export async function findMailThreads(db: Queryable, botId: string, headers: string[]): Promise<DbMailThread[]> {
  if (headers.length === 0) return [];
  return db.query<DbMailThread>(
    `select t.conversation_id, t.message_id, t.direction, c.chat_id
     from mail_threads t join conversations c on c.id = t.conversation_id
     where t.bot_id = $1 and t.message_id_header = any($2::text[])
     order by t.created_at desc`,
    [botId, headers],
  );
}

export async function recordMailThread(
  db: Queryable, botId: string, header: string, conversationId: string, messageId: string | null, direction: "in" | "out",
): Promise<void> {
  await db.query(
    `insert into mail_threads (bot_id, message_id_header, conversation_id, message_id, direction) values ($1, $2, $3, $4, $5)
     on conflict (bot_id, message_id_header) do nothing`,
    [botId, header, conversationId, messageId, direction],
  );
}

export async function recordRefusedMail(
  db: Queryable, botId: string, row: { uid_validity: string; uid: number; sender: string | null; subject: string | null; size_bytes: number; reason: string },
): Promise<void> {
  await db.query(
    `insert into mail_refused (bot_id, uid_validity, uid, sender, subject, size_bytes, reason) values ($1, $2, $3, $4, $5, $6, $7)
     on conflict (bot_id, uid_validity, uid) do nothing`,
    [botId, row.uid_validity, row.uid, row.sender, row.subject, row.size_bytes, row.reason],
  );
}

export interface DbRefusedMail {
  uid: number;
  sender: string | null;
  subject: string | null;
  size_bytes: number;
  reason: string;
  created_at: Date;
}

export async function listRefusedMail(db: Queryable, botId: string, limit: number): Promise<DbRefusedMail[]> {
  return db.query<DbRefusedMail>(
    `select uid, sender, subject, size_bytes, reason, created_at from mail_refused where bot_id = $1 order by id desc limit $2`,
    [botId, limit],
  );
}

// ---- outgoing ------------------------------------------------------------------------------

/**
 * Queues an outgoing message of an e-mail conversation whose bot has an SMTP server set.
 * Idempotent; returns whether a row was queued now.
 */
export async function enqueueMail(db: Queryable, messageId: string): Promise<boolean> {
  const rows = await db.query(
    `insert into mail_deliveries (message_id, bot_id, conversation_id, seq)
     select m.id, m.bot_id, m.conversation_id, m.message_id
     from messages m
     join conversations c on c.id = m.conversation_id and c.channel = 'email'
     join channels ch on ch.bot_id = c.bot_id and ch.channel_type = 'email'
     where m.id = $1 and m.direction = 'out' and ch.is_active and ch.config ? 'smtp'
       and not m.private and not coalesce((m.metadata->>'private')::boolean, false)
     on conflict (message_id) do nothing
     returning message_id`,
    [messageId],
  );
  return rows.length > 0;
}

/** The safety net for lost events: outgoing e-mail-conversation messages since `since` with no row yet. */
export async function enqueueMissedMail(db: Queryable, since: Date): Promise<void> {
  await db.query(
    `insert into mail_deliveries (message_id, bot_id, conversation_id, seq)
     select m.id, m.bot_id, m.conversation_id, m.message_id
     from channels ch
     join messages m on m.bot_id = ch.bot_id and m.direction = 'out' and not m.private and m.created_at > greatest(ch.updated_at, $1::timestamptz)
     join conversations c on c.id = m.conversation_id and c.channel = 'email'
     where ch.channel_type = 'email' and ch.is_active and ch.config ? 'smtp'
       and not coalesce((m.metadata->>'private')::boolean, false)
       and not exists (select 1 from mail_deliveries d where d.message_id = m.id)
     on conflict (message_id) do nothing`,
    [since],
  );
}

export async function isMailPending(db: Queryable, messageId: string): Promise<boolean> {
  const rows = await db.query(`select 1 from mail_deliveries where message_id = $1 and state = 'pending'`, [messageId]);
  return rows.length > 0;
}

export interface PendingMail {
  message_id: string;
  conversation_id: string;
  attempts: number;
  next_attempt_at: Date;
  created_at: Date;
  message_id_header: string | null;
}

export async function listPendingMail(db: Queryable, botId: string, limit: number): Promise<PendingMail[]> {
  return db.query<PendingMail>(
    `select message_id, conversation_id, attempts, next_attempt_at, created_at, message_id_header
     from mail_deliveries where bot_id = $1 and state = 'pending' order by seq limit $2`,
    [botId, limit],
  );
}

export async function countMailSentSince(db: Queryable, botId: string, since: Date): Promise<number> {
  const rows = await db.query<{ n: number }>(
    `select count(*)::int as n from mail_deliveries where bot_id = $1 and state = 'delivered' and finished_at > $2`,
    [botId, since],
  );
  return rows[0]?.n ?? 0;
}

export async function fixMailMessageId(db: Queryable, messageId: string, header: string): Promise<void> {
  await db.query(`update mail_deliveries set message_id_header = $2 where message_id = $1 and message_id_header is null`, [messageId, header]);
}

export async function finishMail(db: Queryable, messageId: string, state: "delivered" | "failed", error: string | null): Promise<void> {
  await db.query(
    `update mail_deliveries set state = $2, attempts = attempts + 1, last_error = $3, finished_at = now() where message_id = $1 and state = 'pending'`,
    [messageId, state, error],
  );
}

export async function retryMailLater(db: Queryable, messageId: string, nextAt: Date, error: string): Promise<void> {
  await db.query(
    `update mail_deliveries set attempts = attempts + 1, next_attempt_at = $2, last_error = $3 where message_id = $1 and state = 'pending'`,
    [messageId, nextAt, error],
  );
}

/** A bounce: the mail was accepted by our server and then refused downstream. */
export async function markMailBounced(db: Queryable, messageId: string, reason: string): Promise<void> {
  await db.query(
    `update mail_deliveries set state = 'failed', last_error = $2, finished_at = now() where message_id = $1`,
    [messageId, reason],
  );
}

export interface DbMailState {
  message_id: string;
  state: "pending" | "delivered" | "failed";
  last_error: string | null;
}

/** Delivery state per message id (the inbox's Message.delivery); messages without a mail row are absent. */
export async function findMailStates(db: Queryable, messageIds: string[]): Promise<Map<string, DbMailState>> {
  if (messageIds.length === 0) return new Map();
  const rows = await db.query<DbMailState>(
    `select message_id, state, last_error from mail_deliveries where message_id = any($1::text::uuid[])`,
    [`{${messageIds.join(",")}}`],
  );
  return new Map(rows.map((r) => [r.message_id, r]));
}

export async function listBotsWithPendingMail(db: Queryable): Promise<string[]> {
  const rows = await db.query<{ bot_id: string }>(`select distinct bot_id from mail_deliveries where state = 'pending'`);
  return rows.map((r) => r.bot_id);
}

export interface DbMailChannel {
  bot_id: string;
  config: Record<string, unknown>;
}

/** Active e-mail channels with a mailbox to read. */
export async function listMailboxChannels(db: Queryable): Promise<DbMailChannel[]> {
  return db.query<DbMailChannel>(
    `select bot_id, config from channels where channel_type = 'email' and is_active and config ? 'imap'`,
  );
}

// ---- password reset ------------------------------------------------------------------------

export async function insertPasswordReset(db: Queryable, tokenHash: string, userId: string, expiresAt: Date): Promise<void> {
  await db.query(`insert into password_resets (token_hash, user_id, expires_at) values ($1, $2, $3)`, [tokenHash, userId, expiresAt]);
}

/** Uses the token: only an unused, unexpired one answers its user, and only once. */
export async function consumePasswordReset(db: Queryable, tokenHash: string, now: Date): Promise<string | undefined> {
  const rows = await db.query<{ user_id: string }>(
    `update password_resets set used_at = $2 where token_hash = $1 and used_at is null and expires_at > $2 returning user_id`,
    [tokenHash, now],
  );
  return rows[0]?.user_id;
}

/** After a reset every other link of that user is void too. */
export async function voidPasswordResets(db: Queryable, userId: string, now: Date): Promise<void> {
  await db.query(`update password_resets set used_at = $2 where user_id = $1 and used_at is null`, [userId, now]);
}

export interface DbIncomingMail {
  email: Record<string, unknown>;
  contact_email: string | null;
}

/** metadata.email of the latest incoming mail in the conversation before message `seq`: what a reply answers. */
export async function findMailAnswered(db: Queryable, conversationId: string, seq: number): Promise<DbIncomingMail | undefined> {
  const rows = await db.query<DbIncomingMail>(
    `select m.metadata->'email' as email, ct.email as contact_email
     from messages m left join contacts ct on ct.id = m.contact_id
     where m.conversation_id = $1 and m.direction = 'in' and m.message_id < $2 and m.metadata ? 'email'
     order by m.message_id desc limit 1`,
    [conversationId, seq],
  );
  return rows[0];
}
