// What the delivering actors (webhook.ts, lanes.ts, mail/mailbox.ts) share: they run only while their
// lease is valid, coalesce "look for work" into one queued pump, and wake themselves when the
// earliest backed-off item may go again.
import type { ActorHooks } from "../actors/system.ts";
import type { LeaseKeeper } from "./lease.ts";

export abstract class LeasedPump<Self extends LeasedPump<Self>> implements ActorHooks {
  protected stopped = false;
  private pumpQueued = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private timerAt = Infinity;

  constructor(
    protected readonly lease: LeaseKeeper,
    /** Re-enters this actor's mailbox. */
    private readonly tell: (work: (actor: Self) => Promise<void> | void) => void,
  ) {}

  /** One round of work: start what may start now; runs only while the lease is valid. */
  protected abstract pump(): Promise<void>;

  async onStop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.lease.stop();
  }

  protected self(work: (actor: Self) => Promise<void> | void): void {
    // Once the lease has ended the worker is stopping this actor: a message now could start a
    // fresh actor under the same name, holding no lease.
    if (!this.stopped && !this.lease.signal.aborted) this.tell(work);
  }

  protected schedulePump(): void {
    if (this.pumpQueued) return;
    this.pumpQueued = true;
    this.self((actor) => actor.runPump());
  }

  async runPump(): Promise<void> {
    this.pumpQueued = false;
    if (this.stopped || !this.lease.valid()) return;
    await this.pump();
  }

  /** Pumps again at `at` (ms since the epoch) unless an earlier wake-up is already set. */
  protected pumpAt(at: number, now: number): void {
    if (!Number.isFinite(at) || at >= this.timerAt) return;
    clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(() => {
      this.timerAt = Infinity;
      this.schedulePump();
    }, Math.max(0, at - now));
  }
}
