// Fixed-window request counters, enough to blunt abuse of public endpoints and password
// guessing. Embedded: in memory, per process. With NATS: shared by every process through a
// JetStream KV counter per (limit, window); the request path still only touches memory, and
// what this process admitted is added to the shared counter in batches every SHARED_SYNC_MS.
// Every process watches the bucket, so it learns the others' totals as they are written. A
// limit can thus be overshot by what the other processes admit within one sync interval
// (plus NATS latency) before the total reaches them; never by more than processes × limit.
import { createHash } from "node:crypto";
import type { KV, NatsConnection } from "nats";
import { rateLimited } from "./core/errors.ts";
import { DEFAULT_NATS_NAMES } from "./core/subjects.ts";
import { isWrongLastSequence } from "./core/jetstream-errors.ts";

/** Windows of keys not seen for this long are forgotten, so memory follows active clients. */
const SWEEP_EVERY_MS = 60_000;
/** Why: how stale another process's view of a shared count can get; it bounds the overshoot, and costs one KV write per busy key per interval. */
export const SHARED_SYNC_MS = 100;
/** Why: the longest window in use (logins, 15 min) must outlive its counter's TTL; longer windows stay per process. */
export const SHARED_MAX_WINDOW_MS = 20 * 60_000;
/** Why: one flush with thousands of busy keys (a flood of distinct clients) must not open thousands of requests at once. */
const SYNC_CONCURRENCY = 64;
/** Why: compare-and-set on a hot key can lose to other processes; past this the delta waits for the next flush. */
const MAX_CAS_ATTEMPTS = 4;
/** Why: a stopping process sends its last counts, but a NATS outage must not hold up the shutdown. */
const CLOSE_FLUSH_MS = 1000;
/** Why: a NATS outage fails every flush; one warning a minute says so without flooding the log. */
const WARN_EVERY_MS = 60_000;
/** Why: other processes' totals are kept for windows not used here yet; a flood of distinct keys must not grow this without end. */
const HEARD_MAX = 100_000;
export const RATE_LIMIT_BUCKET = DEFAULT_NATS_NAMES.rateLimitBucket;

interface Window {
  startedAt: number;
  count: number;
}

/** A shared counter's value as this process last saw it, and the revision to compare-and-set against. */
export interface Seen {
  total: number;
  revision: number;
}

/** Counters every process sees: add returns the total after adding. */
export interface CounterStore {
  /** `last` is what this process last saw of the key: when nobody wrote since, one round trip suffices. */
  add(key: string, delta: number, last: Seen | undefined): Promise<Seen>;
  /** Calls back with every write by any process; returns the stop function. */
  watch(onWrite: (key: string, seen: Seen) => void): Promise<() => void>;
}

export interface SharedOptions {
  store: CounterStore;
  /** Processes with the same scope share counters: one deployment, or one test's platforms. */
  scope: string;
  onError?: (err: unknown) => void;
}

interface SharedWindow {
  /** KV key: a hash of scope, limit key, limit, window length and window start. */
  name: string;
  start: number;
  end: number;
  /** Admitted here, not yet sent. */
  pending: number;
  /** Being added to the shared counter right now. */
  sending: number;
  /** All processes' total as last seen (includes what this process sent). */
  seen: Seen | undefined;
}

export class RateLimiter {
  private readonly windows = new Map<string, Window>();
  private lastSweep: number;
  private readonly sharedWindows = new Map<string, SharedWindow>();
  private readonly dirty = new Set<SharedWindow>();
  /** Totals other processes wrote for windows this one has not used yet (a first request then sees them). */
  private readonly heard = new Map<string, Seen & { end: number }>();
  private readonly byName = new Map<string, SharedWindow>();
  private stopWatching: Promise<() => void> | undefined;
  private readonly timer: ReturnType<typeof setInterval> | undefined;
  private flushing: Promise<void> | undefined;
  private lastWarn = 0;

  constructor(
    private readonly enabled: boolean,
    private readonly now: () => number = Date.now,
    private readonly shared?: SharedOptions,
  ) {
    this.lastSweep = now();
    if (enabled && shared) {
      this.timer = setInterval(() => void this.flush(), SHARED_SYNC_MS);
      this.timer.unref?.();
      this.stopWatching = shared.store.watch((name, seen) => this.hear(name, seen));
      this.stopWatching.catch((err) => this.warn(err));
    }
  }

  /** Counts one request for `key`; throws 429 with retry_after once `limit` per `windowMs` is used. */
  take(key: string, limit: number, windowMs: number): void {
    if (!this.enabled) return;
    const now = this.now();
    this.sweep(now, windowMs);
    if (this.shared && windowMs <= SHARED_MAX_WINDOW_MS) return this.takeShared(key, limit, windowMs, now);
    let window = this.windows.get(key);
    if (!window || now - window.startedAt >= windowMs) {
      window = { startedAt: now, count: 0 };
      this.windows.set(key, window);
    }
    if (window.count >= limit) throw rateLimited(Math.max(1, Math.ceil((window.startedAt + windowMs - now) / 1000)));
    window.count += 1;
  }

  /** Sends what is still pending (a stopping process's last requests count too). */
  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    (await this.stopWatching?.catch(() => undefined))?.();
    await Promise.race([this.flush(), Bun.sleep(CLOSE_FLUSH_MS)]);
  }

  /** A write seen on the bucket (ours included): the newest revision wins. */
  private hear(name: string, seen: Seen): void {
    const window = this.byName.get(name);
    if (window) {
      if (!window.seen || seen.revision > window.seen.revision) window.seen = seen;
      return;
    }
    // Without the window this process cannot tell when it ends: keep it for the longest one.
    const known = this.heard.get(name);
    if (!known && this.heard.size >= HEARD_MAX) this.heard.clear();
    if (!known || seen.revision > known.revision) this.heard.set(name, { ...seen, end: this.now() + SHARED_MAX_WINDOW_MS });
  }

  /** Windows aligned to the clock, so every process names the same window the same way. */
  private takeShared(key: string, limit: number, windowMs: number, now: number): void {
    const start = now - (now % windowMs);
    const id = `${limit}|${windowMs}|${key}`;
    let window = this.sharedWindows.get(id);
    if (!window || window.start !== start) {
      const name = createHash("sha256").update(`${this.shared!.scope}\n${id}\n${start}`).digest("base64url").slice(0, 32);
      const heard = this.heard.get(name);
      this.heard.delete(name);
      window = { name, start, end: start + windowMs, pending: 0, sending: 0, seen: heard && { total: heard.total, revision: heard.revision } };
      this.sharedWindows.set(id, window);
      this.byName.set(name, window);
    }
    if ((window.seen?.total ?? 0) + window.sending + window.pending >= limit) {
      throw rateLimited(Math.max(1, Math.ceil((window.end - now) / 1000)));
    }
    window.pending += 1;
    this.dirty.add(window);
  }

  /** One batch: each busy window's delta added to its shared counter, at most SYNC_CONCURRENCY at once. */
  private flush(): Promise<void> {
    if (this.flushing || this.dirty.size === 0) return this.flushing ?? Promise.resolve();
    const batch = [...this.dirty];
    this.dirty.clear();
    const send = async (window: SharedWindow) => {
      const delta = window.pending;
      if (delta === 0 || window.end <= this.now()) return;
      window.pending = 0;
      window.sending = delta;
      try {
        const seen = await this.shared!.store.add(window.name, delta, window.seen);
        if (!window.seen || seen.revision > window.seen.revision) window.seen = seen;
      } catch (err) {
        window.pending += delta;
        this.dirty.add(window);
        this.warn(err);
      } finally {
        window.sending = 0;
      }
    };
    this.flushing = (async () => {
      for (let i = 0; i < batch.length; i += SYNC_CONCURRENCY) await Promise.all(batch.slice(i, i + SYNC_CONCURRENCY).map(send));
    })().finally(() => (this.flushing = undefined));
    return this.flushing;
  }

  private warn(err: unknown): void {
    const now = Date.now();
    if (now - this.lastWarn < WARN_EVERY_MS) return;
    this.lastWarn = now;
    this.shared?.onError?.(err);
  }

  private sweep(now: number, windowMs: number): void {
    if (now - this.lastSweep < SWEEP_EVERY_MS) return;
    this.lastSweep = now;
    for (const [key, window] of this.windows) {
      if (now - window.startedAt >= Math.max(windowMs, SWEEP_EVERY_MS)) this.windows.delete(key);
    }
    for (const [id, window] of this.sharedWindows) {
      if (window.end > now || this.dirty.has(window)) continue;
      this.sharedWindows.delete(id);
      this.byName.delete(window.name);
    }
    for (const [name, heard] of this.heard) if (heard.end <= now) this.heard.delete(name);
  }
}

/**
 * Counters in a JetStream KV bucket, changed by compare-and-set on the key's revision. In
 * memory: limits need not survive a NATS restart, and a counter outlives the longest window.
 */
export async function kvCounterStore(nc: NatsConnection, bucket = RATE_LIMIT_BUCKET, replicas = 1): Promise<CounterStore> {
  // Loaded here, not at the top: the embedded process (no NATS) never loads the nats client.
  const { KvWatchInclude, StorageType } = await import("nats");
  const kv: KV = await nc.jetstream().views.kv(bucket, { history: 1, ttl: SHARED_MAX_WINDOW_MS, storage: StorageType.Memory, replicas });
  return {
    async add(key, delta, last) {
      for (let attempt = 1; attempt <= MAX_CAS_ATTEMPTS; attempt++) {
        try {
          if (!last) return { total: delta, revision: await kv.create(key, String(delta)) };
          const total = last.total + delta;
          return { total, revision: await kv.update(key, String(total), last.revision) };
        } catch (err) {
          if (!isWrongLastSequence(err)) throw err;
        }
        // Another process wrote since (or the key exists already): read the current total and retry.
        const entry = await kv.get(key);
        last = entry && entry.operation === "PUT" ? { total: Number(entry.string()) || 0, revision: entry.revision } : undefined;
      }
      throw new Error(`rate-limit counter ${key}: ${MAX_CAS_ATTEMPTS} compare-and-set attempts lost`);
    },
    async watch(onWrite) {
      const updates = await kv.watch({ include: KvWatchInclude.UpdatesOnly });
      void (async () => {
        for await (const entry of updates) {
          if (entry.operation === "PUT") onWrite(entry.key, { total: Number(entry.string()) || 0, revision: entry.revision });
        }
      })().catch(() => undefined);
      return () => updates.stop();
    },
  };
}

export const MINUTE_MS = 60_000;
export const LOGIN_WINDOW_MS = 15 * 60_000;
