// Production backups: PostgreSQL through pg_dump, plus the JetStream state the records depend
// on: each bot's pending updates and confirmed watermark (the update log) and every object of
// the file store. The dump is taken FIRST and JetStream read after it, so every update the
// dump knows is either still pending in the export, confirmed below the exported watermark,
// or (committed but not yet published) an outbox row in the dump that the relay publishes
// after the restore. Restore drops what is newer than the dump: updates above a bot's
// restored last_update_id, and clamps the watermark to it.
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Config } from "../config.ts";
import { natsNames } from "../core/subjects.ts";
import { openPostgres } from "../db/postgres.ts";
import type { Db } from "../db/driver.ts";
import { natsFileStore } from "../files/nats.ts";
import { connectNats } from "../nats.ts";
import { openJetStreamLog } from "../updates/jetstream.ts";
import { MAX_READ_LIMIT, type LogUpdate } from "../updates/log.ts";
import { BACKUP_FORMAT, BackupError, pack, removeStaging, run, stagingDir, unpack, type Manifest } from "./archive.ts";

const DUMP = "database.dump";
const UPDATES = "updates.jsonl";
const FILES = "files";

interface BotLog {
  bot_id: string;
  confirmed_below: number;
  updates: LogUpdate[];
}

/** pg_dump must be at least the server's version: Debian's newest installed one, else PATH's. */
function pgTool(name: "pg_dump" | "pg_restore"): string {
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root) ? readdirSync(root).filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a)) : [];
  for (const v of versions) if (existsSync(join(root, v, "bin", name))) return join(root, v, "bin", name);
  return name;
}

async function openJetStream(config: Config) {
  const nc = await connectNats(config.natsUrl!, "backup");
  const names = natsNames(config.natsPrefix);
  const log = await openJetStreamLog(nc, { names, replicas: config.natsReplicas });
  const files = await natsFileStore(nc, names.filesBucket, config.natsReplicas);
  return { nc, names, log, files, async close() {
    await log.close();
    await files.close();
    await nc.drain();
  } };
}

async function lastMigration(db: Db): Promise<string | undefined> {
  const rows = await db.query<{ name: string }>(`select name from schema_migrations order by name desc limit 1`).catch(() => []);
  return rows[0]?.name;
}

export async function backupProduction(config: Config, target: string): Promise<string> {
  const stage = stagingDir();
  const db = await openPostgres(config.databaseUrl!);
  try {
    await run([pgTool("pg_dump"), "--format=custom", "--no-owner", "--no-privileges", "--file", join(stage, DUMP), config.databaseUrl!], "pg_dump");
    const schema = await lastMigration(db);
    const js = await openJetStream(config);
    let updates = 0;
    let files = 0;
    try {
      // Every bot there is now: one created after the dump is dropped again by the restore.
      const bots = await db.query<{ id: string }>(`select id from bots order by id`);
      const lines: string[] = [];
      for (const { id } of bots) {
        const entry: BotLog = { bot_id: id, confirmed_below: await js.log.confirmedBelow(id), updates: [] };
        for (let from = 0; ;) {
          const page = await js.log.read(id, from, MAX_READ_LIMIT);
          entry.updates.push(...page);
          if (page.length < MAX_READ_LIMIT) break;
          from = page.at(-1)!.update_id + 1;
        }
        updates += entry.updates.length;
        lines.push(JSON.stringify(entry));
      }
      await Bun.write(join(stage, UPDATES), lines.join("\n"));
      mkdirSync(join(stage, FILES));
      for (const object of await js.files.list()) {
        const bytes = await js.files.get(object.key);
        if (!bytes) continue;
        await Bun.write(join(stage, FILES, object.key), new Response(bytes));
        files++;
      }
    } finally {
      await js.close();
    }
    const manifest: Manifest = { format: BACKUP_FORMAT, mode: "production", created_at: new Date().toISOString(), schema, contents: { bots_updates: updates, files } };
    await pack(stage, manifest, target);
    return `backed up the database (pg_dump), ${updates} pending update(s) and ${files} file(s) to ${target}`;
  } finally {
    await db.close();
    removeStaging(stage);
  }
}

/** Restores into an empty database and a NATS_PREFIX whose update log and file store are empty. */
export async function restoreProduction(config: Config, source: string): Promise<string> {
  const stage = stagingDir();
  const db = await openPostgres(config.databaseUrl!);
  try {
    const manifest = await unpack(source, stage, "production");
    const [existing] = await db.query<{ present: boolean }>(`select to_regclass('schema_migrations') is not null as present`);
    if (existing?.present) throw new BackupError("DATABASE_URL's database is not empty: restore into a new database (createdb) and point DATABASE_URL at it");
    const js = await openJetStream(config);
    try {
      const jsm = await js.nc.jetstreamManager();
      const stored = (await jsm.streams.info(js.names.updatesStream)).state.messages;
      const objects = (await js.files.list()).length;
      if (stored > 0 || objects > 0) {
        throw new BackupError(`NATS_PREFIX "${config.natsPrefix}" already holds ${stored} update(s) and ${objects} file(s): restore under a new NATS_PREFIX (or delete its streams first)`);
      }
      await run([pgTool("pg_restore"), "--no-owner", "--no-privileges", "--exit-on-error", "--dbname", config.databaseUrl!, join(stage, DUMP)], "pg_restore");

      const last = new Map((await db.query<{ id: string; last_update_id: number }>(`select id, last_update_id from bots`)).map((b) => [b.id, Number(b.last_update_id)]));
      let updates = 0;
      let dropped = 0;
      const text = readFileSync(join(stage, UPDATES), "utf8");
      for (const line of text.split("\n").filter(Boolean)) {
        const entry = JSON.parse(line) as BotLog;
        const lastId = last.get(entry.bot_id);
        if (lastId === undefined) continue;
        const kept = entry.updates.filter((u) => u.update_id <= lastId);
        dropped += entry.updates.length - kept.length;
        for (let i = 0; i < kept.length; i += MAX_READ_LIMIT) {
          await js.log.appendMany(entry.bot_id, kept.slice(i, i + MAX_READ_LIMIT).map((u) => ({ update_id: u.update_id, payload: u.payload })));
        }
        updates += kept.length;
        const below = Math.min(entry.confirmed_below, lastId + 1);
        if (below > 0) await js.log.confirm(entry.bot_id, below);
      }
      let files = 0;
      if (existsSync(join(stage, FILES))) {
        for (const key of readdirSync(join(stage, FILES))) {
          await js.files.put(key, Bun.file(join(stage, FILES, key)).stream());
          files++;
        }
      }
      return `restored ${source} (taken ${manifest.created_at}): the database, ${updates} pending update(s) (${dropped} newer than the dump left out), ${files} file(s)`;
    } finally {
      await js.close();
    }
  } finally {
    await db.close();
    removeStaging(stage);
  }
}
