import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Db } from "./driver.ts";

const MIGRATIONS_DIR = join(import.meta.dir, "../../sql");
/** Any constant works; it only has to be the same in every process that migrates. */
const MIGRATION_LOCK_KEY = 7_340_112;

export interface Migration {
  name: string;
  sql: string;
}

export function readMigrations(dir = MIGRATIONS_DIR): Migration[] {
  return readdirSync(dir)
    .filter((f) => /^\d+_.+\.sql$/.test(f))
    .sort()
    .map((name) => ({ name, sql: readFileSync(join(dir, name), "utf8") }));
}

/**
 * Applies pending migrations, each in its own transaction that first takes a
 * transaction-scoped advisory lock and records the migration, so two processes
 * migrating at once apply each file exactly once. Returns the names applied.
 */
export async function migrate(db: Db, migrations = readMigrations()): Promise<string[]> {
  await db.query(
    `create table if not exists schema_migrations (name text primary key, applied_at timestamptz not null default now())`,
  ).catch(async () => {
    // Two processes racing on "create table if not exists" can collide on the catalog; the loser retries once.
    await db.query(`create table if not exists schema_migrations (name text primary key, applied_at timestamptz not null default now())`);
  });
  const applied: string[] = [];
  for (const m of migrations) {
    const didApply = await db.transaction(async (tx) => {
      await tx.query(`select pg_advisory_xact_lock($1)`, [MIGRATION_LOCK_KEY]);
      const inserted = await tx.query(
        `insert into schema_migrations (name) values ($1) on conflict do nothing returning name`,
        [m.name],
      );
      if (inserted.length === 0) return false;
      await tx.exec(m.sql);
      return true;
    });
    if (didApply) applied.push(m.name);
  }
  return applied;
}

/** Migrations not yet applied to `db`: a process that does not migrate refuses to serve on an old schema. */
export async function pendingMigrations(db: Db, migrations = readMigrations()): Promise<string[]> {
  const [table] = await db.query<{ exists: boolean }>(`select to_regclass('schema_migrations') is not null as exists`);
  if (!table?.exists) return migrations.map((m) => m.name);
  const rows = await db.query<{ name: string }>(`select name from schema_migrations`);
  const applied = new Set(rows.map((r) => r.name));
  return migrations.map((m) => m.name).filter((name) => !applied.has(name));
}
