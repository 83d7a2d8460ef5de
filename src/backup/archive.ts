// A backup is one gzipped tar file: `manifest.json` first, then what the mode needs
// (embedded: the data directory's snapshot and its other files; production: pg_dump's
// archive, the update log's pending updates and the file store's objects). System tar
// writes and reads it: present on every machine we run on, and an operator can inspect a
// backup with it.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

export const MANIFEST = "manifest.json";
/** Bumped when the layout changes; restore refuses a version it does not know. */
export const BACKUP_FORMAT = 1;

export interface Manifest {
  format: number;
  mode: "embedded" | "production";
  created_at: string;
  /** The last migration applied when the backup was taken (restore needs code at least this new). */
  schema: string | undefined;
  /** Counts for the operator: what the backup holds. */
  contents: Record<string, number>;
}

export class BackupError extends Error {}

export async function run(argv: string[], what: string, env?: Record<string, string | undefined>): Promise<void> {
  const proc = Bun.spawn(argv, { stdout: "pipe", stderr: "pipe", env: env ?? process.env });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new BackupError(`${what} failed (exit ${code}): ${(err || out).trim().slice(0, 2000)}`);
}

/** A private staging folder, removed by the caller's `finally`. */
export const stagingDir = () => mkdtempSync(join(tmpdir(), "botinbox-backup-"));
export const removeStaging = (dir: string) => rmSync(dir, { recursive: true, force: true });

export async function pack(stage: string, manifest: Manifest, target: string): Promise<void> {
  writeFileSync(join(stage, MANIFEST), JSON.stringify(manifest, null, 2));
  // Written beside the target and renamed: a backup file that exists is a whole one.
  const partial = `${resolve(target)}.partial`;
  await run(["tar", "-czf", partial, "-C", stage, "."], "tar");
  await run(["mv", "-f", partial, resolve(target)], "mv");
}

export async function unpack(source: string, stage: string, mode: Manifest["mode"]): Promise<Manifest> {
  await run(["tar", "-xzf", resolve(source), "-C", stage], `reading ${source}`);
  let manifest: Manifest;
  try {
    manifest = JSON.parse(readFileSync(join(stage, MANIFEST), "utf8"));
  } catch {
    throw new BackupError(`${source} is not a botinbox backup (no ${MANIFEST})`);
  }
  if (manifest.format !== BACKUP_FORMAT) throw new BackupError(`${source} has backup format ${manifest.format}; this version reads ${BACKUP_FORMAT}`);
  if (manifest.mode !== mode) {
    throw new BackupError(`${source} is a backup of a ${manifest.mode} deployment; this one is ${mode} (restore where it was taken, or migrate the data by hand)`);
  }
  return manifest;
}
