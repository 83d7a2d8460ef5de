// Embedded backups: the database's snapshot (taken by the running server through its control
// socket, or by opening the data directory when no server runs) and every other file of
// DATA_DIR: uploaded files, the JWT secret (it also encrypts the stored bot tokens), keys.
// The snapshot is taken first and the files copied after it: a file a snapshot row names was
// written before its row committed, so it is there; a newer file is an orphan the sweep removes.
import { cpSync, existsSync, mkdirSync, readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { DataDirLocked, LOCK_FILE, lockDataDir } from "../db/datadir-lock.ts";
import { openPglite, restorePglite } from "../db/pglite.ts";
import { isTemporary } from "../files/disk.ts";
import { BACKUP_FORMAT, BackupError, pack, removeStaging, stagingDir, unpack, type Manifest } from "./archive.ts";
import { CONTROL_SOCKET, requestSnapshot } from "./control.ts";

const PGDATA = "pgdata";
const SNAPSHOT = "pgdata.tar.gz";
/** DATA_DIR's own files, copied as they are. */
const DATA = "data";
/** Belong to the running process, not to the deployment. */
const NOT_COPIED = new Set([PGDATA, LOCK_FILE, CONTROL_SOCKET]);

async function snapshotOf(dataDir: string): Promise<{ snapshot: Blob; via: string }> {
  let unlock: (() => void) | undefined;
  try {
    unlock = lockDataDir(dataDir);
  } catch (err) {
    if (!(err instanceof DataDirLocked)) throw err;
    try {
      return { snapshot: await requestSnapshot(dataDir), via: `the running server (pid ${err.ownerPid})` };
    } catch (socketErr) {
      throw new BackupError(`DATA_DIR ${dataDir} is in use by process ${err.ownerPid} and its control socket did not answer (${(socketErr as Error).message}); stop it and run the backup again`);
    }
  }
  try {
    const db = await openPglite(join(dataDir, PGDATA));
    try {
      return { snapshot: await db.snapshot!(), via: "the stopped data directory" };
    } finally {
      await db.close();
    }
  } finally {
    unlock();
  }
}

export async function backupEmbedded(dataDirSetting: string, target: string): Promise<string> {
  const dataDir = resolve(dataDirSetting);
  if (!existsSync(join(dataDir, PGDATA))) throw new BackupError(`DATA_DIR ${dataDir} holds no database (${PGDATA}/): nothing to back up`);
  const stage = stagingDir();
  try {
    const { snapshot, via } = await snapshotOf(dataDir);
    await Bun.write(join(stage, SNAPSHOT), snapshot);
    let files = 0;
    mkdirSync(join(stage, DATA));
    for (const name of readdirSync(dataDir)) {
      if (NOT_COPIED.has(name)) continue;
      cpSync(join(dataDir, name), join(stage, DATA, name), {
        recursive: true,
        // A half-written upload is not a file yet.
        filter: (from) => !isTemporary(from) && (statSync(from).isDirectory() || (files++, true)),
      });
    }
    const manifest: Manifest = { format: BACKUP_FORMAT, mode: "embedded", created_at: new Date().toISOString(), schema: undefined, contents: { database_bytes: snapshot.size, files } };
    await pack(stage, manifest, target);
    return `backed up ${dataDir} (database snapshot from ${via}, ${snapshot.size} bytes compressed; ${files} other file(s)) to ${resolve(target)}`;
  } finally {
    removeStaging(stage);
  }
}

/** Restores into a DATA_DIR that holds no database yet (an existing one is never overwritten). */
export async function restoreEmbedded(dataDirSetting: string, source: string): Promise<string> {
  const dataDir = resolve(dataDirSetting);
  if (existsSync(join(dataDir, PGDATA))) {
    throw new BackupError(`DATA_DIR ${dataDir} already holds a database: restore into an empty DATA_DIR (move the old one aside first)`);
  }
  mkdirSync(dataDir, { recursive: true });
  let unlock: () => void;
  try {
    unlock = lockDataDir(dataDir);
  } catch (err) {
    if (err instanceof DataDirLocked) throw new BackupError(err.message);
    throw err;
  }
  const stage = stagingDir();
  try {
    const manifest = await unpack(source, stage, "embedded");
    cpSync(join(stage, DATA), dataDir, { recursive: true });
    await restorePglite(join(dataDir, PGDATA), Bun.file(join(stage, SNAPSHOT)));
    return `restored ${resolve(source)} (taken ${manifest.created_at}) into ${dataDir}`;
  } finally {
    removeStaging(stage);
    unlock();
  }
}
