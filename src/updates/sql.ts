// The update log as a table in the SQL database (embedded default; sql/090_update_log.sql).
import type { Db, Queryable } from "../db/driver.ts";
import { json } from "../db/driver.ts";
import { clampLimit, UPDATE_RETENTION_MS, type LogOptions, type LogUpdate, type NewUpdate, type UpdateLog } from "./log.ts";

/** Why: expired rows of bots nobody reads or confirms any more must not pile up; hourly is plenty for a 24 h window. */
export const SWEEP_INTERVAL_MS = 3600 * 1000;

export interface SqlLogOptions extends LogOptions {
  /** 0 disables the periodic sweep (tests call sweep() themselves). */
  sweepIntervalMs?: number;
}

export interface SqlUpdateLog extends UpdateLog {
  /**
   * Appends as part of the caller's transaction in the same database: the update is durable
   * exactly when the message that caused it is, so no outbox row and no publish step. Several
   * bots' updates (a shared intake transaction) go in one statement.
   */
  appendWithin(tx: Queryable, appends: BotUpdates[]): Promise<void>;
  /** Deletes every expired update of every bot; returns how many. */
  sweep(): Promise<number>;
}

/** One bot's updates, in the order they were numbered. */
export interface BotUpdates {
  botId: string;
  updates: NewUpdate[];
}

// The confirmed watermark of a bot (named by a parameter or a column), 0 when it never confirmed anything.
const watermarkOf = (botId: string) => `coalesce((select below from update_log_confirmed c where c.bot_id = ${botId}), 0)`;
const WATERMARK = watermarkOf("$1");

interface Row {
  update_id: number;
  /** The payload as text: parsed here, and passed on as is to answers (LogUpdate.json). */
  payload: string;
  date: number;
}

export async function openSqlLog(db: Db, options: SqlLogOptions = {}): Promise<SqlUpdateLog> {
  const now = options.now ?? Date.now;
  const sweepIntervalMs = options.sweepIntervalMs ?? SWEEP_INTERVAL_MS;
  // Rows appended at or before this instant have outlived their 24 h.
  const expiredAt = () => new Date(now() - UPDATE_RETENTION_MS).toISOString();
  const toUpdate = (r: Row): LogUpdate => ({ update_id: Number(r.update_id), payload: JSON.parse(r.payload) as Record<string, unknown>, json: r.payload, date: Number(r.date) });

  const log: SqlUpdateLog = {
    async append(botId, update) {
      await log.appendMany(botId, [update]);
    },

    async eraseChats(botId, chatIds) {
      const rows = await db.query(
        `delete from update_log where bot_id = $1 and coalesce(payload #>> '{message,chat,id}', payload #>> '{edited_message,chat,id}',
           payload #>> '{operator_message,chat,id}', payload #>> '{callback_query,message,chat,id}') = any($2::text[]) returning 1`,
        [botId, chatIds],
      );
      return rows.length;
    },

    async appendMany(botId, updates) {
      await log.appendWithin(db, [{ botId, updates }]);
    },

    async appendWithin(tx, appends) {
      const rows = appends.flatMap(({ botId, updates }) => updates.map((u) => ({ botId, u })));
      if (rows.length === 0) return;
      // A re-append below the watermark is skipped here; one racing a confirm may still slip
      // in, which is why every read also filters on the watermark.
      await tx.query(
        `insert into update_log (bot_id, update_id, payload, appended_at)
         select v.bot_id, v.update_id, v.payload::jsonb, $4::timestamptz
         from unnest($1::uuid[], $2::int8[], $3::text[]) as v(bot_id, update_id, payload)
         where v.update_id >= ${watermarkOf("v.bot_id")}
         on conflict (bot_id, update_id) do nothing`,
        [rows.map((r) => r.botId), rows.map((r) => r.u.update_id), rows.map((r) => json(r.u.payload)), new Date(now()).toISOString()],
      );
    },

    async read(botId, fromUpdateId, limit) {
      const n = clampLimit(limit);
      if (n === 0) return [];
      const rows = await db.query<Row>(
        `select update_id, payload::text as payload, floor(extract(epoch from appended_at))::int8 as date
         from update_log
         where bot_id = $1 and update_id >= greatest($2::int8, ${WATERMARK}) and appended_at > $3::timestamptz
         order by update_id
         limit $4`,
        [botId, Math.floor(fromUpdateId), expiredAt(), n],
      );
      return rows.map(toUpdate);
    },

    async tail(botId, count) {
      const n = clampLimit(count);
      if (n === 0) return [];
      const rows = await db.query<Row>(
        `select update_id, payload::text as payload, floor(extract(epoch from appended_at))::int8 as date
         from update_log
         where bot_id = $1 and update_id >= ${WATERMARK} and appended_at > $2::timestamptz
         order by update_id desc
         limit $3`,
        [botId, expiredAt(), n],
      );
      return rows.map(toUpdate).reverse();
    },

    async confirm(botId, belowUpdateId) {
      // One statement: the watermark only ever rises, and the delete uses the risen value, so
      // two confirms racing each other never lower it.
      await db.query(
        `with w as (
           insert into update_log_confirmed (bot_id, below) values ($1, $2)
           on conflict (bot_id) do update set below = greatest(update_log_confirmed.below, excluded.below)
           returning below
         )
         delete from update_log
         where bot_id = $1 and (update_id < (select below from w) or appended_at <= $3::timestamptz)`,
        [botId, Math.floor(belowUpdateId), expiredAt()],
      );
    },

    async confirmedBelow(botId) {
      const rows = await db.query<{ below: number }>(`select ${WATERMARK}::int8 as below`, [botId]);
      return Number(rows[0]?.below ?? 0);
    },

    async pendingCount(botId) {
      const rows = await db.query<{ n: number }>(
        `select count(*)::int8 as n from update_log
         where bot_id = $1 and update_id >= ${WATERMARK} and appended_at > $2::timestamptz`,
        [botId, expiredAt()],
      );
      return Number(rows[0]?.n ?? 0);
    },

    async drop(botId) {
      await db.query(
        `with m as (select coalesce(max(update_id) + 1, 0) as below from update_log where bot_id = $1),
         w as (
           insert into update_log_confirmed (bot_id, below) select $1::uuid, below from m
           on conflict (bot_id) do update set below = greatest(update_log_confirmed.below, excluded.below)
           returning below
         )
         delete from update_log where bot_id = $1 and update_id < (select below from w)`,
        [botId],
      );
    },

    async sweep() {
      const rows = await db.query<{ n: number }>(
        `with d as (delete from update_log where appended_at <= $1::timestamptz returning 1)
         select count(*)::int8 as n from d`,
        [expiredAt()],
      );
      return Number(rows[0]?.n ?? 0);
    },

    async close() {
      if (timer) clearInterval(timer);
      timer = undefined;
      await sweeping;
    },
  };

  let sweeping: Promise<unknown> = Promise.resolve();
  let timer: ReturnType<typeof setInterval> | undefined;
  if (sweepIntervalMs > 0) {
    timer = setInterval(() => {
      // A failed sweep is retried at the next tick; expired rows are already invisible to reads.
      sweeping = log.sweep().catch(() => undefined);
    }, sweepIntervalMs);
    timer.unref?.();
  }
  return log;
}
