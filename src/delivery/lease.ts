// Keeps one delivery lease alive for an actor: renews it on a timer and, the moment it can no
// longer be sure it holds it, aborts the holder's work. "Sure" is measured on our own clock
// from the instant a renew was *sent*, and only over part of the TTL: a JetStream KV key may
// age out somewhat before its TTL (test/leases/contract.ts allows 20 %), and a takeover must
// never overlap our last request.
import { renewIntervalMs, type Leases } from "../leases/leases.ts";

/** Why: stop delivering after 70 % of the TTL without a confirmed renew, well inside the 80 % floor of an early expiry. */
export const LEASE_SAFE_FRACTION = 0.7;

export class LeaseKeeper {
  private readonly controller = new AbortController();
  private validUntil: number;
  private renewTimer: ReturnType<typeof setInterval> | undefined;
  private expiryTimer: ReturnType<typeof setTimeout> | undefined;
  private renewing = false;
  private crashed = false;

  constructor(
    private readonly leases: Leases,
    readonly key: string,
    readonly holder: string,
    private readonly ttlMs: number,
    /** When the acquire that won the lease was sent. */
    acquiredAt: number,
    private readonly onLost: (reason: string) => void,
    private readonly now: () => number = Date.now,
  ) {
    this.validUntil = acquiredAt + ttlMs * LEASE_SAFE_FRACTION;
    this.renewTimer = setInterval(() => void this.renew(), renewIntervalMs(ttlMs));
    this.armExpiry();
  }

  /** Aborted as soon as the lease is lost, expires unrenewed, or the keeper stops. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Ended by halt(): a simulated crash, after which nothing more is written. */
  get halted(): boolean {
    return this.crashed;
  }

  valid(): boolean {
    return !this.controller.signal.aborted && this.now() < this.validUntil;
  }

  /** Ends the work and frees the lease for another worker (unless halted: a simulated crash). */
  async stop(): Promise<void> {
    this.end();
    if (!this.crashed) await this.leases.release(this.key, this.holder).catch(() => undefined);
  }

  /** As a crash: the work stops, the lease is left to expire. */
  halt(): void {
    this.crashed = true;
    this.end();
  }

  /** Stops renewing and aborts the work at once; stop() still releases. */
  end(): void {
    clearInterval(this.renewTimer);
    clearTimeout(this.expiryTimer);
    this.renewTimer = this.expiryTimer = undefined;
    if (!this.controller.signal.aborted) this.controller.abort();
  }

  private async renew(): Promise<void> {
    if (this.renewing || this.controller.signal.aborted) return;
    this.renewing = true;
    const sentAt = this.now();
    try {
      if (await this.leases.renew(this.key, this.holder)) {
        if (this.controller.signal.aborted) return;
        this.validUntil = sentAt + this.ttlMs * LEASE_SAFE_FRACTION;
        this.armExpiry();
      } else {
        this.lose("lease taken by another worker or expired");
      }
    } catch {
      // Unknown (NATS unreachable): keep going while the last renew still covers us; the expiry timer decides.
    } finally {
      this.renewing = false;
    }
  }

  private armExpiry(): void {
    clearTimeout(this.expiryTimer);
    this.expiryTimer = setTimeout(() => {
      if (this.now() >= this.validUntil) this.lose("lease not renewed in time");
    }, Math.max(0, this.validUntil - this.now()));
  }

  private lose(reason: string): void {
    if (this.controller.signal.aborted) return;
    this.end();
    this.onLost(reason);
  }
}
