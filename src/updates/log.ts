// The per-bot update log that get-updates and the webhook worker read (docs/design.md §2).
// Two implementations share this contract: a table in the SQL database (embedded default,
// src/updates/sql.ts) and a JetStream stream (production, src/updates/jetstream.ts).
//
// The log does not number updates: `update_id` is assigned by the SQL transaction that
// accepts the message (its outbox row), so a relay that republishes after a crash appends
// the very same identity again. Every read therefore de-duplicates by update_id, and a
// per-bot "confirmed below" watermark keeps a late re-append of an already confirmed update
// from coming back.

export interface LogUpdate {
  update_id: number;
  payload: Record<string, unknown>;
  /**
   * The payload as the JSON text it was stored as, when the reader had it without encoding
   * (the log's own bytes, a committed batch's outbox row): an answer passes it on unchanged.
   */
  json?: string;
  /** Unix seconds when the update was first appended (the Update's date for the webhook worker). */
  date: number;
}

export interface NewUpdate {
  update_id: number;
  payload: Record<string, unknown>;
  /** The payload already encoded as JSON (by the outbox row's writer), so it is not encoded twice. */
  json?: string;
  /**
   * Appended again after the log lost it (outbox/repair.ts): the log may still remember the lost
   * append as done (JetStream's duplicate window) and must not take this one for a repeat of it.
   */
  republished?: boolean;
}

export interface UpdateLog {
  /** Durable when it resolves; idempotent per (botId, update_id). */
  append(botId: string, update: NewUpdate): Promise<void>;
  /**
   * Appends in the order given, pipelined: durable when it resolves. Should it fail, a later
   * one may be stored without an earlier one; readers hold back behind such a gap while the
   * missing update is still committed and unpublished (outbox/ordered-log.ts).
   */
  appendMany(botId: string, updates: NewUpdate[]): Promise<void>;
  /** Unconfirmed, unexpired updates with update_id >= fromUpdateId, ascending, each once. */
  read(botId: string, fromUpdateId: number, limit: number): Promise<LogUpdate[]>;
  /**
   * The last `count` unconfirmed updates, ascending (get-updates with a negative offset).
   * It forgets nothing: the caller confirms below the first one returned, as Telegram does.
   */
  tail(botId: string, count: number): Promise<LogUpdate[]>;
  /** Forgets every update_id < belowUpdateId, also ones appended again later. */
  confirm(botId: string, belowUpdateId: number): Promise<void>;
  /** The bot's watermark: every update_id below it is confirmed (0 before its first confirm). */
  confirmedBelow(botId: string): Promise<number>;
  /** Unconfirmed, unexpired updates (WebhookInfo.pending_update_count). */
  pendingCount(botId: string): Promise<number>;
  /**
   * Erasure: removes for good every stored update of the bot whose message is in one of
   * these chats (payload included); returns how many. Readers see a gap there, like a confirm.
   */
  eraseChats(botId: string, chatIds: string[]): Promise<number>;
  /**
   * Makes every append acknowledged before the call readable, and the next read look at all
   * that is stored (not only what came after the last one), for a reader about to pass a gap
   * (outbox/ordered-log.ts). Absent where reads always see acknowledged appends (the SQL log).
   */
  settle?(botId: string): Promise<void>;
  /**
   * The update_id of the bot's last stored message in the log's own order; undefined when none is
   * stored or the last is not an update (a marker). One quick look where `tail` would read the
   * bot's whole subject (outbox/repair.ts, after a NATS restart). Absent for the SQL log.
   */
  lastAppended?(botId: string): Promise<number | undefined>;
  /**
   * Forgets what this process knows of every bot's stored updates (where they are, their bodies):
   * after a reconnect, the server may hold another store than before (one restored after a
   * power cut numbers new appends where lost ones were). Absent for the SQL log.
   */
  reindex?(): void;
  /** Forgets everything pending now (drop_pending_updates). */
  drop(botId: string): Promise<void>;
  /** Stops background work; the database or NATS connection stays open (its owner closes it). */
  close(): Promise<void>;
}

/** Why: Telegram keeps unconfirmed updates 24 h. */
export const UPDATE_RETENTION_MS = 24 * 3600 * 1000;

/** Why: bounds one read's memory and round trips; callers clamp far lower (get-updates: 100). */
export const MAX_READ_LIMIT = 1000;

export interface LogOptions {
  /** Milliseconds since the epoch; injected so tests can expire updates without waiting a day. */
  now?: () => number;
}

/** Clamps a caller's limit into 0..MAX_READ_LIMIT; 0 means "read nothing". */
export function clampLimit(limit: number): number {
  if (!Number.isFinite(limit) || limit <= 0) return 0;
  return Math.min(Math.floor(limit), MAX_READ_LIMIT);
}
