// The UPDATES stream's configuration, and its creation or update at start-up (any process,
// safe to race); the update log on it is jetstream.ts.
import { DiscardPolicy, nanos, RetentionPolicy, StorageType, type JetStreamManager, type StreamConfig, type StreamInfo } from "nats";
import type { NatsNames } from "../core/subjects.ts";
import { UPDATE_RETENTION_MS } from "./log.ts";

/** Why: the server's default; republishes after it are caught by readers' de-duplication. */
const DUPLICATE_WINDOW_MS = 2 * 60 * 1000;

function streamConfig(replicas: number, names: NatsNames): Partial<StreamConfig> {
  return {
    name: names.updatesStream,
    subjects: [names.updatesSubject("*")],
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    discard: DiscardPolicy.Old,
    max_age: nanos(UPDATE_RETENTION_MS),
    duplicate_window: nanos(DUPLICATE_WINDOW_MS),
    num_replicas: replicas,
  };
}

/** Creates the stream, or brings an existing one to our configuration; safe to race. */
export async function ensureStream(jsm: JetStreamManager, replicas: number, names: NatsNames): Promise<void> {
  const UPDATES_STREAM = names.updatesStream;
  const wanted = streamConfig(replicas, names);
  let existing: StreamInfo;
  try {
    existing = await jsm.streams.info(UPDATES_STREAM);
  } catch (err) {
    if ((err as Error).message !== "stream not found") throw err;
    try {
      await jsm.streams.add(wanted);
      return;
    } catch (addErr) {
      // Another process created it between our info and add.
      existing = await jsm.streams.info(UPDATES_STREAM).catch(() => {
        throw addErr;
      });
    }
  }
  const c = existing.config;
  const same = c.subjects?.length === 1 && c.subjects[0] === wanted.subjects![0]
    && c.max_age === wanted.max_age && c.duplicate_window === wanted.duplicate_window && c.num_replicas === wanted.num_replicas;
  if (!same) await jsm.streams.update(UPDATES_STREAM, { ...c, ...wanted });
}
