// In-process leases for the embedded single-process mode. JavaScript runs one callback at a
// time, so a plain map is already exclusive; the TTL still matters inside one process: a
// worker that stalls without renewing loses its lease like it would across processes.
import { assertLeaseKey, type Leases } from "./leases.ts";

export interface MemoryLeasesOptions {
  ttlMs: number;
  /** Milliseconds since the epoch; injected so tests can expire leases without waiting. */
  now?: () => number;
}

export function memoryLeases({ ttlMs, now = Date.now }: MemoryLeasesOptions): Leases {
  if (!(ttlMs > 0)) throw new Error("ttlMs must be positive");
  const held = new Map<string, { holder: string; expiresAt: number }>();

  const current = (key: string) => {
    const lease = held.get(key);
    if (lease && lease.expiresAt <= now()) {
      held.delete(key);
      return undefined;
    }
    return lease;
  };

  return {
    async acquire(key, holder) {
      assertLeaseKey(key);
      const lease = current(key);
      if (lease && lease.holder !== holder) return false;
      held.set(key, { holder, expiresAt: now() + ttlMs });
      return true;
    },
    async renew(key, holder) {
      assertLeaseKey(key);
      const lease = current(key);
      if (!lease || lease.holder !== holder) return false;
      lease.expiresAt = now() + ttlMs;
      return true;
    },
    async release(key, holder) {
      assertLeaseKey(key);
      if (current(key)?.holder === holder) held.delete(key);
    },
    async holder(key) {
      assertLeaseKey(key);
      return current(key)?.holder;
    },
    async close() {
      held.clear();
    },
  };
}
