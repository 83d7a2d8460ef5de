// Leases for single-owner work (docs/design.md §2): one webhook deliverer per bot across processes.
// A lease lasts ttlMs after its last acquire or renew; its holder renews well within that
// (a third of it is a good rhythm) and stops the work as soon as renew answers false.
// Holder names must be unique per process (and per worker inside one): two workers that
// share a name would both believe they hold the lease.

export interface Leases {
  /** True if the key is now held by holder (also when it already was: that renews it). */
  acquire(key: string, holder: string): Promise<boolean>;
  /** Extends holder's lease; false if it was lost (expired or taken), and then it is not retaken. */
  renew(key: string, holder: string): Promise<boolean>;
  /** Frees the key if holder has it; anyone else's lease is left alone. */
  release(key: string, holder: string): Promise<void>;
  holder(key: string): Promise<string | undefined>;
  /** Releases every lease taken through this instance, so a graceful stop hands work over at once. */
  close(): Promise<void>;
}

/** The key alphabet of a JetStream KV key, enforced by both implementations alike. */
const KEY_PATTERN = /^[-/_=a-zA-Z0-9]+(\.[-/_=a-zA-Z0-9]+)*$/;

export function assertLeaseKey(key: string): void {
  if (!KEY_PATTERN.test(key)) throw new Error(`invalid lease key "${key}": use letters, digits, - / _ = and inner dots`);
}

/** Why: renewing at a third of the TTL survives two missed renewals before the lease lapses. */
export const RENEW_FRACTION = 1 / 3;

/** How often a holder should renew a lease of ttlMs. */
export const renewIntervalMs = (ttlMs: number) => Math.max(1, Math.floor(ttlMs * RENEW_FRACTION));
