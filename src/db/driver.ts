// The SQL layer's one interface. Both drivers speak the same Postgres SQL with $n
// placeholders; query functions in src/db never know which driver they have.
// Conventions that keep both drivers identical:
//   - JSON parameters are passed as strings and cast with `$n::text::jsonb` (or `::json` for a
//     set of rows read once with json_to_recordset, db/intake-write.ts);
//   - int8 columns come back as JS numbers (all our ids stay below 2^53).

export interface Queryable {
  query<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>;
  /** Runs a multi-statement script without parameters (migrations). */
  exec(script: string): Promise<void>;
}

export interface Db extends Queryable {
  readonly kind: "postgres" | "pglite";
  /** Runs fn in one transaction; rolls back when fn throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /**
   * A transaction whose fn issues its last statements without awaiting them and hands them
   * back as `last`: COMMIT follows them at once (PostgreSQL: written together, one round trip
   * fewer) and the result is theirs. If any of them fails, nothing is committed and it throws.
   */
  transactionCommitBehind<T>(fn: (tx: Queryable) => Promise<{ last: Promise<T> }>, settings?: TransactionSettings): Promise<T>;
  /** Answers quickly whether the database is reachable (for /readyz). */
  ping(): Promise<boolean>;
  /**
   * Embedded only: a gzipped tarball of the data directory taken between two statements, so
   * it is crash-consistent (what a restart after kill -9 would recover); `npm run backup`.
   */
  snapshot?(): Promise<Blob>;
  /**
   * Embedded only: closes and opens the database again. PGlite's WASM heap never shrinks, so
   * what initdb and a run of migrations touched stays resident until the instance is dropped.
   */
  reopen?(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Settings for the rest of a transaction (SET LOCAL), made before its first statement. On
 * PostgreSQL they travel in BEGIN's own message (`begin; set local …`): a SET is parsed, never
 * planned, so they cost no statement of their own (docs/decisions.md round 23).
 */
export type TransactionSettings = readonly (readonly [name: string, value: string])[];

/** A setting's name and value as SET takes them unquoted: ours are constants, anything else is refused. */
const PLAIN_SETTING = /^[a-z_]+$/;
function plain(settings: TransactionSettings): TransactionSettings {
  for (const [name, value] of settings) {
    if (!PLAIN_SETTING.test(name) || !PLAIN_SETTING.test(value)) throw new Error(`not a plain setting: ${name} = ${value}`);
  }
  return settings;
}
/** `set local name = value` for each setting, refused unless every name and value is plain. */
export function setLocal(settings: TransactionSettings): string[] {
  return plain(settings).map(([name, value]) => `set local ${name} = ${value}`);
}
/**
 * The same settings as one statement with parameters (`select set_config('name', $n, true), …`),
 * which a driver prepares once: a statement without parameters would go out as a simple query,
 * parsed and planned on every transaction. Refused unless every name and value is plain.
 */
export function setConfig(settings: TransactionSettings): { text: string; params: string[] } {
  const calls = plain(settings).map(([name], i) => `set_config('${name}', $${i + 1}, true)`);
  return { text: `select ${calls.join(", ")}`, params: settings.map(([, value]) => value) };
}

/** Serialises a value for a `$n::text::jsonb` parameter. */
export const json = (value: unknown): string => JSON.stringify(value ?? null);
