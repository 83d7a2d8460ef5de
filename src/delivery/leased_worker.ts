// What the delivery worker (worker.ts) and the mail worker (mail/worker.ts) share: one actor
// per bot and kind, each under a lease, so any number of processes split the bots and a dead
// process's bots are taken over once its leases expire. Work is learnt of from the bus and from
// a periodic scan; a graceful stop cuts the work and releases the leases, a (simulated) crash
// leaves them to expire.
import { randomUUID } from "node:crypto";
import { ActorSystem, type Actor, type ActorRef } from "../actors/system.ts";
import type { EventBus, Unsubscribe } from "../bus/bus.ts";
import type { Leases } from "../leases/leases.ts";
import type { Logger } from "../logger.ts";
import { LeaseKeeper } from "./lease.ts";

/** An actor this worker runs, and the lease it runs under. */
export interface Held<Kind extends string, A extends Actor, Tag> {
  kind: Kind;
  botId: string;
  ref: ActorRef<A>;
  keeper: LeaseKeeper;
  /** When the acquire that won the lease was sent. */
  since: number;
  /** What the worker noted on taking it (the mail worker: the mailbox config it started with). */
  tag: Tag;
}

/** The worker's own log lines. */
export interface WorkerWords {
  actorFailed: string;
  leaseFailed: string;
  scanFailed: string;
  serving: string;
  notServing: string;
}

export interface LeasedWorkerSetup {
  /** Names the holder; a random part keeps two workers in one process apart. */
  holderPrefix: string;
  bus: EventBus;
  logger: Logger;
  leases: Leases;
  leaseTtlMs: number;
  scanIntervalMs: number;
  words: WorkerWords;
  /** Tests against a shared database work only for their own bots. */
  accept?: (botId: string) => boolean;
}

export abstract class LeasedWorker<Kind extends string, A extends Actor, Tag = void> {
  /** Unique per worker: two workers in one process must never share a lease holder name. */
  readonly holder: string;
  private readonly actors: ActorSystem;
  protected readonly held = new Map<string, Held<Kind, A, Tag>>();
  private readonly acquiring = new Set<string>();
  private subscriptions: Unsubscribe[] = [];
  private scanTimer: ReturnType<typeof setInterval> | undefined;
  private scanning: Promise<void> | undefined;
  protected closed = false;

  constructor(private readonly setup: LeasedWorkerSetup) {
    this.holder = `${setup.holderPrefix}-${randomUUID()}`;
    this.actors = new ActorSystem({
      // Leases, not idleness, decide when these actors go.
      idleMs: Infinity,
      onError: (name, err) => setup.logger.error({ err, actor: name }, setup.words.actorFailed),
    });
  }

  /** The bus subscriptions that bring work; made on start, ended on stop. */
  protected abstract subscribe(bus: EventBus): Unsubscribe[];
  /** One periodic look for the work the at-most-once bus dropped and for freed leases. */
  protected abstract scanOnce(): Promise<void>;
  /** The actor for a lease just won; `finish` asks the worker to retire it. */
  protected abstract create(
    kind: Kind, botId: string, keeper: LeaseKeeper, tell: (work: (actor: A) => Promise<void> | void) => void, finish: (reason: string) => void, tag: Tag,
  ): A;

  protected leaseKey(kind: Kind, botId: string): string {
    return `${kind}.${botId}`;
  }

  /** After the actors have stopped: what else must be written before the worker is gone. */
  protected async afterStop(): Promise<void> {}

  async start(): Promise<this> {
    this.subscriptions.push(...this.subscribe(this.setup.bus));
    await this.setup.bus.flush();
    await this.scan();
    this.scanTimer = setInterval(() => void this.scan(), this.setup.scanIntervalMs);
    return this;
  }

  /** Graceful: in-flight work is cut, leases released so another worker takes over at once. */
  stop(): Promise<void> {
    // Cut the work now; each actor's onStop then releases its lease.
    return this.shut((keeper) => keeper.end());
  }

  /** As a killed process (tests): work stops at once, leases are left to expire. */
  crash(): Promise<void> {
    return this.shut((keeper) => keeper.halt());
  }

  private async shut(end: (keeper: LeaseKeeper) => void): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.scanTimer);
    for (const unsubscribe of this.subscriptions.splice(0)) unsubscribe();
    for (const held of this.held.values()) end(held.keeper);
    await this.scanning;
    await this.actors.close();
    await this.afterStop();
  }

  protected accepts(botId: string): boolean {
    return !this.setup.accept || this.setup.accept(botId);
  }

  protected heldOf(kind: Kind, botId: string): Held<Kind, A, Tag> | undefined {
    return this.held.get(`${kind}:${botId}`);
  }

  /** Tells the actor, when this worker holds its lease. */
  protected tellHeld(kind: Kind, botId: string, work: (actor: A) => Promise<void> | void): boolean {
    const held = this.heldOf(kind, botId);
    held?.ref.tell(work);
    return held !== undefined;
  }

  protected scan(): Promise<void> {
    if (this.closed || this.scanning) return this.scanning ?? Promise.resolve();
    this.scanning = this.scanOnce()
      .catch((err) => this.setup.logger.warn({ err }, this.setup.words.scanFailed))
      .finally(() => (this.scanning = undefined));
    return this.scanning;
  }

  protected async acquire(kind: Kind, botId: string, tag: Tag): Promise<void> {
    const name = `${kind}:${botId}`;
    if (this.closed || this.held.has(name) || this.acquiring.has(name) || !this.accepts(botId)) return;
    this.acquiring.add(name);
    const { leases, logger } = this.setup;
    const key = this.leaseKey(kind, botId);
    const sentAt = Date.now();
    let won = false;
    try {
      won = await leases.acquire(key, this.holder);
    } catch (err) {
      logger.warn({ err, bot: botId, kind }, this.setup.words.leaseFailed);
    } finally {
      this.acquiring.delete(name);
    }
    if (!won) return;
    if (this.closed) return void (await leases.release(key, this.holder).catch(() => undefined));
    const finish = (reason: string) => this.retire(kind, botId, reason);
    const keeper = new LeaseKeeper(leases, key, this.holder, this.setup.leaseTtlMs, sentAt, finish);
    const ref: ActorRef<A> = this.actors.actorOf<A>(kind, botId, () => this.create(kind, botId, keeper, (work) => ref.tell(work), finish, tag));
    this.held.set(name, { kind, botId, ref, keeper, since: sentAt, tag });
    logger.debug({ bot: botId, kind, holder: this.holder }, this.setup.words.serving);
    // The first message creates the actor, whose onStart loads its work.
    ref.tell(() => undefined);
  }

  protected retire(kind: Kind, botId: string, reason: string): void {
    const name = `${kind}:${botId}`;
    const held = this.held.get(name);
    if (!held) return;
    this.held.delete(name);
    held.keeper.end();
    this.setup.logger.debug({ bot: botId, kind, reason }, this.setup.words.notServing);
    void this.actors.stop(kind, botId);
  }
}
