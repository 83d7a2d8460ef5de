// Leases in a JetStream KV bucket (production). The bucket's TTL is the lease TTL: every
// acquire or renew rewrites the key, and a key not rewritten for ttlMs ages out, so a dead
// holder's lease frees itself. Exclusivity comes from compare-and-set on the key's revision
// (create succeeds only on an absent key; update only if nobody wrote since the revision we
// read), checked by the server, so two holders can never both hold a key.
import { nanos, type KV, type KvEntry, type NatsConnection } from "nats";
import { assertLeaseKey, type Leases } from "./leases.ts";
import { DEFAULT_NATS_NAMES } from "../core/subjects.ts";
import { isWrongLastSequence } from "../core/jetstream-errors.ts";

export const LEASES_BUCKET = DEFAULT_NATS_NAMES.leasesBucket;
/** Why: a key that ages out or is released between our create and get is retried, but never forever. */
const MAX_ACQUIRE_ATTEMPTS = 3;

export interface JetStreamLeasesOptions {
  ttlMs: number;
  /** Separate buckets for separate TTLs (tests use a short one). */
  bucket?: string;
  /** Stream replicas; 1 on a single server, 3 on a cluster. */
  replicas?: number;
}

const holderOf = (e: KvEntry | null): string | undefined => (e && e.operation === "PUT" ? e.string() : undefined);

export async function jetStreamLeases(nc: NatsConnection, options: JetStreamLeasesOptions): Promise<Leases> {
  const { ttlMs, bucket = LEASES_BUCKET, replicas = 1 } = options;
  if (!(ttlMs > 0)) throw new Error("ttlMs must be positive");
  const js = nc.jetstream();
  // Strict reads (no direct get): a holder() answer must not come from a lagging replica.
  const kv: KV = await js.views.kv(bucket, { ttl: ttlMs, history: 1, replicas, allow_direct: false });
  await ensureTtl(nc, kv, ttlMs);

  // The revision of our last write per key: renew then needs one round trip, not two.
  const mine = new Map<string, { holder: string; revision: number }>();

  /** Rewrites the key if nobody wrote since `revision`; false if somebody did (or it aged out). */
  async function write(key: string, holder: string, revision: number): Promise<boolean> {
    try {
      mine.set(key, { holder, revision: await kv.update(key, holder, revision) });
      return true;
    } catch (err) {
      if (!isWrongLastSequence(err)) throw err;
      mine.delete(key);
      return false;
    }
  }

  /** Renews by reading the key: true only if it still names holder and our rewrite wins. */
  async function renewByRead(key: string, holder: string): Promise<boolean> {
    const e = await kv.get(key);
    if (holderOf(e) !== holder) {
      mine.delete(key);
      return false;
    }
    return write(key, holder, e!.revision);
  }

  return {
    async acquire(key, holder) {
      assertLeaseKey(key);
      for (let attempt = 1; attempt <= MAX_ACQUIRE_ATTEMPTS; attempt++) {
        try {
          mine.set(key, { holder, revision: await kv.create(key, holder) });
          return true;
        } catch (err) {
          if (!isWrongLastSequence(err)) throw err;
        }
        const e = await kv.get(key);
        const current = holderOf(e);
        if (current === holder) return write(key, holder, e!.revision);
        if (current !== undefined) return false;
        // Freed between our create and get: try to create again.
      }
      return false;
    },

    async renew(key, holder) {
      assertLeaseKey(key);
      const cached = mine.get(key);
      if (cached?.holder === holder && await write(key, holder, cached.revision)) return true;
      // No cached revision (another instance under the same holder name) or it is stale.
      return renewByRead(key, holder);
    },

    async release(key, holder) {
      assertLeaseKey(key);
      mine.delete(key);
      const e = await kv.get(key);
      if (holderOf(e) !== holder) return;
      try {
        await kv.delete(key, { previousSeq: e!.revision });
      } catch (err) {
        // Somebody else wrote in between: the lease is theirs now, so there is nothing to free.
        if (!isWrongLastSequence(err)) throw err;
      }
    },

    async holder(key) {
      assertLeaseKey(key);
      return holderOf(await kv.get(key));
    },

    async close() {
      const held = [...mine.entries()];
      mine.clear();
      // Only keys untouched since our own last write; on any error the TTL frees them anyway.
      await Promise.all(held.map(([key, { revision }]) => kv.delete(key, { previousSeq: revision }).catch(() => undefined)));
    },
  };
}

/**
 * views.kv binds to an existing bucket as it is, so a bucket made under an older TTL setting
 * would keep it; bring max_age (and the duplicate window, which may not exceed it) in line.
 */
async function ensureTtl(nc: NatsConnection, kv: KV, ttlMs: number): Promise<void> {
  const status = await kv.status();
  if (status.ttl === ttlMs) return;
  const jsm = await nc.jetstreamManager();
  const info = await jsm.streams.info(status.streamInfo.config.name);
  const duplicateWindow = Math.min(info.config.duplicate_window, nanos(ttlMs));
  await jsm.streams.update(info.config.name, { ...info.config, max_age: nanos(ttlMs), duplicate_window: duplicateWindow });
}
