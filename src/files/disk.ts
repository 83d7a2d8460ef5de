// Embedded file store: one file per key under DATA_DIR/files. Written to a temporary name,
// fsynced, then renamed, so a crash never leaves a partial file under its real name.
import { mkdir, open, readdir, rename, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { randomUUID } from "node:crypto";
import { sliceStream, type ByteRange, type FileStore, type StoredObject } from "./store.ts";

const TEMP_SUFFIX = ".part";
/** Keys are file ids (uuids); anything else would let a key name a path outside the folder. */
const SAFE_KEY = /^[0-9a-zA-Z_-][0-9a-zA-Z_.-]{0,127}$/;

export async function diskFileStore(dir: string): Promise<FileStore> {
  await mkdir(dir, { recursive: true });
  const pathOf = (key: string) => {
    if (!SAFE_KEY.test(key)) throw new Error(`invalid file store key "${key}"`);
    return join(dir, key);
  };
  return {
    async put(key, data) {
      const final = pathOf(key);
      const temp = join(dir, `${key}.${randomUUID()}${TEMP_SUFFIX}`);
      const handle = await open(temp, "w");
      try {
        const reader = data.getReader();
        for (let next = await reader.read(); !next.done; next = await reader.read()) await handle.write(next.value);
        await handle.sync();
      } catch (err) {
        await handle.close().catch(() => {});
        await rm(temp, { force: true });
        throw err;
      }
      await handle.close();
      await rename(temp, final);
    },
    async get(key, range?: ByteRange) {
      const file = Bun.file(pathOf(key));
      if (!(await file.exists())) return undefined;
      const whole = file.stream();
      return range ? sliceStream(whole, range) : whole;
    },
    async delete(key) {
      await rm(pathOf(key), { force: true });
    },
    async list() {
      const out: StoredObject[] = [];
      for (const name of await readdir(dir)) {
        const info = await stat(join(dir, name)).catch(() => undefined);
        if (!info?.isFile()) continue;
        // A temporary file is listed under its own name: the sweep removes one a crash left behind.
        out.push({ key: name, modified: info.mtime });
      }
      return out;
    },
    async close() {},
  };
}

/** Temporary names are not keys: the sweep deletes them by their own name once they are old. */
export const isTemporary = (key: string) => key.endsWith(TEMP_SUFFIX);
