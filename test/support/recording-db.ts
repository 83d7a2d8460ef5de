// A database whose transactions' statements are recorded as they go out and as their answers
// come back: what tests of the group commit read the order of its round trips from.
import { setLocal, type Db, type Queryable, type TransactionSettings } from "../../src/db/driver.ts";

/**
 * `db`, except that each statement of its transactions (transactionCommitBehind) is pushed to
 * `events` when sent (its first 40 characters) and again as "answered: <same>" when its answer
 * is back. Settings made with the transaction's BEGIN come first, as `begin; set local …`.
 * A statement sent outside any transaction (its own) is recorded as `outside: <its start>`.
 */
export function recordingStatements(db: Db, events: string[]): Db {
  return new Proxy(db, {
    get(target, key) {
      if (key === "query") {
        return async <R>(text: string, params?: unknown[]) => {
          const start = `outside: ${text.trim().slice(0, 40)}`;
          events.push(start);
          const rows = await target.query<R>(text, params);
          events.push(`answered: ${start}`);
          return rows;
        };
      }
      if (key === "transactionCommitBehind") {
        const query = (tx: Queryable) => async <R>(text: string, params?: unknown[]) => {
          const start = text.trim().slice(0, 40);
          events.push(start);
          const rows = await tx.query<R>(text, params);
          events.push(`answered: ${start}`);
          return rows;
        };
        return <T>(fn: (tx: Queryable) => Promise<{ last: Promise<T> }>, settings?: TransactionSettings) => {
          if (settings?.length) events.push(["begin", ...setLocal(settings)].join("; ").slice(0, 40));
          return target.transactionCommitBehind((tx) => fn({ ...tx, query: query(tx) }), settings);
        };
      }
      const value = Reflect.get(target, key);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** The statements of `events` as sent, without their answers. */
export const sentOnly = (events: string[]) => events.filter((e) => !e.startsWith("answered: "));
