// Production file store: a JetStream Object Store bucket (`<prefix>_FILES`), replicated as
// every other stream (NATS_REPLICAS), so any web process serves any file and a cluster
// keeps them through a node's loss. Objects are chunked by the client; nothing is held whole.
import { StorageType, type NatsConnection } from "nats";
import { sliceStream, type FileStore } from "./store.ts";

/**
 * The Object Store client publishes each chunk without waiting for its acknowledgement, so it
 * reads an upload as fast as the client sends it, and the chunks it published stay alive
 * until acknowledged, long enough to outlive a young collection (a 50 MB upload grew the
 * process by 42–50 MB). Every this many bytes the next chunk waits for a round trip to the
 * server (flush) and a full collection (about 25 ms): a 50 MB upload then grows it by 12–15 MB.
 */
const FLUSH_EVERY_BYTES = 2 * 1024 * 1024;

/** Hands on `source`'s chunks, pausing for `flush` and a collection every FLUSH_EVERY_BYTES. */
function paced(source: ReadableStream<Uint8Array>, flush: () => Promise<void>): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  let since = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (since >= FLUSH_EVERY_BYTES) {
        since = 0;
        await flush();
        Bun.gc(true);
      }
      const next = await reader.read();
      if (next.done) return controller.close();
      since += next.value.byteLength;
      controller.enqueue(next.value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
}

export async function natsFileStore(nats: NatsConnection, bucket: string, replicas: number): Promise<FileStore> {
  const os = await nats.jetstream().views.os(bucket, { replicas, storage: StorageType.File });
  return {
    async put(key, data) {
      await os.put({ name: key }, paced(data, () => nats.flush()));
    },
    async get(key, range) {
      const result = await os.get(key);
      if (!result) return undefined;
      result.error.catch(() => {});
      return range ? sliceStream(result.data, range) : result.data;
    },
    async delete(key) {
      await os.delete(key).catch((err: unknown) => {
        if (!/not found/i.test(String(err))) throw err;
      });
    },
    async list() {
      const all = await os.list();
      return all.filter((o) => !o.deleted).map((o) => ({ key: o.name, modified: new Date(o.mtime) }));
    },
    async close() {},
  };
}
