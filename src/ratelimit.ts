// Fixed-window request counters, in memory per process: cheap, and enough to blunt abuse
// of public endpoints and password guessing. With several web processes each counts on
// its own, so the effective limit is per process (documented in the README).
import { rateLimited } from "./core/errors.ts";

/** Windows of keys not seen for this long are forgotten, so memory follows active clients. */
const SWEEP_EVERY_MS = 60_000;

interface Window {
  startedAt: number;
  count: number;
}

export class RateLimiter {
  private readonly windows = new Map<string, Window>();
  private lastSweep: number;

  constructor(
    private readonly enabled: boolean,
    private readonly now: () => number = Date.now,
  ) {
    this.lastSweep = now();
  }

  /** Counts one request for `key`; throws 429 with retry_after once `limit` per `windowMs` is used. */
  take(key: string, limit: number, windowMs: number): void {
    if (!this.enabled) return;
    const now = this.now();
    this.sweep(now, windowMs);
    let window = this.windows.get(key);
    if (!window || now - window.startedAt >= windowMs) {
      window = { startedAt: now, count: 0 };
      this.windows.set(key, window);
    }
    if (window.count >= limit) throw rateLimited(Math.max(1, Math.ceil((window.startedAt + windowMs - now) / 1000)));
    window.count += 1;
  }

  private sweep(now: number, windowMs: number): void {
    if (now - this.lastSweep < SWEEP_EVERY_MS) return;
    this.lastSweep = now;
    for (const [key, window] of this.windows) {
      if (now - window.startedAt >= Math.max(windowMs, SWEEP_EVERY_MS)) this.windows.delete(key);
    }
  }
}

export const MINUTE_MS = 60_000;
export const LOGIN_WINDOW_MS = 15 * 60_000;
