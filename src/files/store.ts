// The file store port: where a file's bytes live, keyed by the file's id. Embedded, files
// under DATA_DIR/files (files/disk.ts); production, a JetStream Object Store bucket
// (files/nats.ts), so a cluster keeps files as it keeps updates. What the bytes are and
// whose they are is in SQL (db/files.ts).

/** Bytes `start`..`end` inclusive, as an HTTP Range names them. */
export interface ByteRange {
  start: number;
  end: number;
}

export interface StoredObject {
  key: string;
  /** When it was written: the sweep leaves young objects alone (their row may still be on its way). */
  modified: Date;
}

export interface FileStore {
  /** Stores the stream under `key`; a stream that errors (too large, client gone) leaves nothing under it. */
  put(key: string, data: ReadableStream<Uint8Array>): Promise<void>;
  /** The bytes (or a range of them); undefined when nothing is stored under `key`. */
  get(key: string, range?: ByteRange): Promise<ReadableStream<Uint8Array> | undefined>;
  delete(key: string): Promise<void>;
  list(): Promise<StoredObject[]>;
  close(): Promise<void>;
}

/** Drops bytes before `range.start` and after `range.end` of a stream read from the start. */
export function sliceStream(source: ReadableStream<Uint8Array>, range: ByteRange): ReadableStream<Uint8Array> {
  let offset = 0;
  const reader = source.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      for (;;) {
        const next = await reader.read();
        if (next.done || offset > range.end) {
          reader.cancel().catch(() => {});
          controller.close();
          return;
        }
        const chunk = next.value;
        const from = Math.max(0, range.start - offset);
        const to = Math.min(chunk.byteLength, range.end + 1 - offset);
        offset += chunk.byteLength;
        if (to > from) {
          controller.enqueue(chunk.subarray(from, to));
          return;
        }
      }
    },
    cancel: () => reader.cancel(),
  });
}
