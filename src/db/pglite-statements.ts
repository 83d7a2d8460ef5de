// Named statements for PGlite, kept like postgres.js keeps them on PostgreSQL. PGlite's own
// query() sends every statement unnamed: parsed, analysed and planned on each call, over six
// separate calls into the WASM backend (parse, describe, bind, describe, execute, sync). Here a
// text is parsed and described once per instance; each run is one call carrying bind, describe,
// execute and sync. Which plan a run gets is the session's plan_cache_mode: db/pglite.ts has
// every run planned, and a transaction may ask for one kept plan (db/intake-plans.ts).
import { type PGlite, parse, protocol } from "@electric-sql/pglite";

/**
 * Texts kept per instance, least recently used closed first. Why 512: an ingest run issued 36
 * distinct texts and the whole API has a few hundred, some varying with how many items a list
 * carries; each kept statement holds its parse tree (and a kept plan) in the backend's memory.
 */
export const KEPT_STATEMENTS = 512;

interface Kept {
  name: string;
  /** The type oid of each parameter, as the backend inferred it (picks PGlite's serialiser). */
  paramTypes: number[];
}

/**
 * The session setting that has every run of a kept statement planned, unless its transaction asks
 * for the kept plan (db/intake-plans.ts). Why: PGlite never gathers statistics, and the plan cache
 * left to itself settled on generic plans made while the tables were small; under load they
 * scanned ever larger tables (embedded ingest fell from 1,518 to 159 msgs/s within a minute).
 */
export const PLAN_EVERY_RUN = "plan_cache_mode=force_custom_plan";

type Runner = Pick<PGlite, "execProtocolStream" | "serializers" | "parsers" | "runExclusive" | "_runExclusiveTransaction">;

/** One instance's kept statements; a reopened instance needs a new one. */
export class KeptStatements {
  readonly #kept = new Map<string, Kept>();
  #named = 0;

  constructor(private readonly pg: Runner) {}

  /**
   * A statement of its own. It takes both of PGlite's locks, as PGlite's query() does: it must
   * not run inside another caller's open transaction. Its writes reach the file system at once.
   */
  alone<T>(text: string, params: readonly unknown[]): Promise<T[]> {
    return this.pg._runExclusiveTransaction(() => this.pg.runExclusive(() => this.#query<T>(text, params, false)));
  }

  /**
   * A statement of the caller's open transaction (whose transaction lock the caller holds). It
   * takes the query lock, as tx.query does: statements of one transaction may be issued together.
   * `stillOpen` throws once the transaction has ended; its writes reach the file system at COMMIT.
   */
  inTransaction<T>(text: string, params: readonly unknown[], stillOpen: () => void): Promise<T[]> {
    return this.pg.runExclusive(async () => {
      stillOpen();
      return this.#query<T>(text, params, true);
    });
  }

  async #query<T>(text: string, params: readonly unknown[], inTransaction: boolean): Promise<T[]> {
    try {
      return await this.#run<T>(text, params, inTransaction);
    } catch (err) {
      // A table's columns changed under a kept `select *` (a migration, say): PostgreSQL refuses
      // the old statement rather than answer with other columns. Outside a transaction nothing
      // was done, so it is prepared again and run once more; inside one the error stands, as it
      // does on PostgreSQL.
      if (inTransaction || !isStaleResultType(err)) throw err;
      await this.#forget(text);
      return this.#run<T>(text, params, inTransaction);
    }
  }

  async #run<T>(text: string, params: readonly unknown[], inTransaction: boolean): Promise<T[]> {
    const kept = this.#kept.get(text) ?? (await this.#prepare(text));
    // Refreshed as the most recently used.
    this.#kept.delete(text);
    this.#kept.set(text, kept);
    const values = params.map((value, i) => {
      if (value === null || value === undefined) return null;
      const serialise = this.pg.serializers[kept.paramTypes[i] ?? 0];
      return serialise ? serialise(value) : String(value);
    });
    const run = concat(
      protocol.serialize.bind({ statement: kept.name, values }),
      protocol.serialize.describe({ type: "P" }),
      protocol.serialize.execute({}),
      protocol.serialize.sync(),
    );
    // On an error the backend skips to the sync and answers it; PGlite then throws its DatabaseError.
    const messages = await this.pg.execProtocolStream(run, { syncToFs: !inTransaction });
    return (parse.parseResults(messages, this.pg.parsers)[0]?.rows ?? []) as T[];
  }

  async #forget(text: string): Promise<void> {
    const kept = this.#kept.get(text);
    if (!kept) return;
    this.#kept.delete(text);
    await this.pg.execProtocolStream(concat(protocol.serialize.close({ type: "S", name: kept.name }), protocol.serialize.sync()), { syncToFs: false });
  }

  async #prepare(text: string): Promise<Kept> {
    const name = `k${++this.#named}`;
    const parts = [
      protocol.serialize.parse({ name, text }),
      protocol.serialize.describe({ type: "S", name }),
      protocol.serialize.sync(),
    ];
    const oldest = this.#kept.size >= KEPT_STATEMENTS ? this.#kept.keys().next().value : undefined;
    if (oldest !== undefined) {
      const closed = this.#kept.get(oldest);
      this.#kept.delete(oldest);
      if (closed) parts.unshift(protocol.serialize.close({ type: "S", name: closed.name }));
    }
    // A text the backend refuses throws here and is not kept.
    const messages = await this.pg.execProtocolStream(concat(...parts), { syncToFs: false });
    return { name, paramTypes: parse.parseDescribeStatementResults(messages) };
  }
}

/** PostgreSQL's refusal to run a kept statement whose result's columns have changed. */
function isStaleResultType(err: unknown): boolean {
  const { code, message } = (err ?? {}) as { code?: unknown; message?: unknown };
  return code === "0A000" && typeof message === "string" && message.includes("cached plan must not change result type");
}

/** The messages as one buffer: the backend reads them in order within one call. */
const concat = (...parts: Uint8Array[]): Uint8Array => Buffer.concat(parts);
