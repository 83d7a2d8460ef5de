// The embedded server's control socket: a Unix socket in DATA_DIR through which `npm run
// backup` asks the running process for a snapshot of its database. PGlite lives inside the
// server process and the data directory is locked to it, so nothing else can read the
// database consistently while it serves. The socket file's permissions (owner only) are
// its authentication: whoever may read DATA_DIR may back it up.
import { chmodSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Db } from "../db/driver.ts";
import type { Logger } from "../logger.ts";

export const CONTROL_SOCKET = "control.sock";
/** Why: sun_path holds 108 bytes on Linux (104 on macOS); a longer path cannot be bound. */
const MAX_SOCKET_PATH_BYTES = 100;

export const controlSocketPath = (dataDir: string) => join(resolve(dataDir), CONTROL_SOCKET);

export interface ControlServer {
  stop(): void;
}

/** Serves POST /snapshot (the database's gzipped data directory) on DATA_DIR/control.sock. */
export function startControlSocket(dataDir: string, db: Db, logger: Logger): ControlServer | undefined {
  const snapshot = db.snapshot?.bind(db);
  if (!snapshot) return undefined;
  const path = controlSocketPath(dataDir);
  if (Buffer.byteLength(path) > MAX_SOCKET_PATH_BYTES) {
    logger.warn({ path }, "DATA_DIR's path is too long for the control socket: `npm run backup` works only while the server is stopped");
    return undefined;
  }
  // A socket file left by a killed process (the data directory's lock is ours now).
  rmSync(path, { force: true });
  const server = Bun.serve({
    unix: path,
    async fetch(request) {
      if (request.method === "POST" && new URL(request.url).pathname === "/snapshot") {
        const started = Date.now();
        const tarball = await snapshot();
        logger.info({ bytes: tarball.size, ms: Date.now() - started }, "database snapshot taken for a backup");
        return new Response(tarball, { headers: { "content-type": "application/gzip" } });
      }
      return new Response("not found", { status: 404 });
    },
  });
  chmodSync(path, 0o600);
  return {
    stop() {
      server.stop(true);
      rmSync(path, { force: true });
    },
  };
}

/** Asks the process serving `dataDir` for a snapshot. */
export async function requestSnapshot(dataDir: string): Promise<Blob> {
  const res = await fetch("http://localhost/snapshot", { method: "POST", unix: controlSocketPath(dataDir) } as RequestInit);
  if (!res.ok) throw new Error(`the running server refused the snapshot: ${res.status}`);
  return await res.blob();
}
