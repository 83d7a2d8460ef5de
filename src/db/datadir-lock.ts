// One process per embedded data directory: PGlite has no server to arbitrate, so two
// processes on the same files corrupt them (or abort in WASM). The lock file names its
// owner's pid; a lock whose owner is gone (kill -9, a crash) is taken over.
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const LOCK_FILE = "botinbox.lock";

export class DataDirLocked extends Error {
  constructor(readonly dataDir: string, readonly ownerPid: number) {
    super(`DATA_DIR ${dataDir} is in use by process ${ownerPid} (lock file ${join(dataDir, LOCK_FILE)}); stop that process or set another DATA_DIR`);
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Takes the directory's lock for this process; returns the release function. */
export function lockDataDir(dataDir: string): () => void {
  const path = join(dataDir, LOCK_FILE);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(path, `${process.pid}\n`, { flag: "wx" });
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        try {
          if (readFileSync(path, "utf8").trim() === String(process.pid)) rmSync(path, { force: true });
        } catch {}
      };
      process.once("exit", release);
      return release;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
    const owner = Number(readFileSync(path, "utf8").trim());
    if (owner > 0 && owner !== process.pid && alive(owner)) throw new DataDirLocked(dataDir, owner);
    // Stale: its owner died without removing it.
    rmSync(path, { force: true });
  }
  throw new Error(`could not take the lock file ${path}`);
}
