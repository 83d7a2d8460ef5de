// A small actor runtime after tdlib's (telegram-bot-api): one actor per key, created on first
// use, named after its key, one message at a time from a bounded FIFO mailbox, parents own
// their children, idle actors are evicted. A message is a closure run against the actor's
// state, so an actor's fields are only ever touched by one message at a time.
//
// A ref is an address, not a lease: if the actor behind it was evicted or stopped, the next
// message starts a fresh one under the same name. Generations of one name never overlap:
// the new one is created only after the old one has run its last message and onStop.
import { AsyncLocalStorage } from "node:async_hooks";
import { AppError } from "../core/errors.ts";

/** Lifecycle hooks an actor may define; an actor with neither is any object. */
export interface ActorHooks {
  /** Runs before the first message (load state); a failure rejects the queued messages. */
  onStart?(): Promise<void> | void;
  /** Runs after the last message, when the actor is evicted, stopped or the system closes. */
  onStop?(): Promise<void> | void;
}

// Not the hooks interface itself: a type whose members are all optional would reject
// actors that define neither hook (TypeScript's weak-type check).
export type Actor = object;

export interface ActorRef<A extends Actor> {
  /** `${kind}:${key}` */
  readonly name: string;
  /** Queued behind earlier messages; settles with the work's result or error. */
  ask<T>(work: (actor: A) => Promise<T> | T): Promise<T>;
  /** Fire-and-forget: a failure (or a full mailbox) goes to onError, never to the caller. */
  tell(work: (actor: A) => Promise<void> | void): void;
}

export interface ActorSystemOptions {
  mailboxLimit?: number;
  idleMs?: number;
  /** How long close() waits for queued work before giving up on it. */
  closeTimeoutMs?: number;
  onError?: (name: string, err: unknown) => void;
}

/** Past this many queued messages an actor is overloaded: answer 503 now instead of queueing minutes of work. */
export const DEFAULT_MAILBOX_LIMIT = 1000;
/** An actor unused this long is dropped, so memory follows active keys rather than every key ever seen. */
export const DEFAULT_IDLE_MS = 60_000;
/** Shutdown must finish within a process manager's grace period (commonly 10-30 s). */
export const DEFAULT_CLOSE_TIMEOUT_MS = 10_000;

type Work = (actor: Actor) => unknown;

interface Envelope {
  work: Work;
  resolve(value: unknown): void;
  reject(err: unknown): void;
}

interface Address {
  readonly kind: string;
  readonly key: string;
  readonly name: string;
  readonly create: () => Actor;
  readonly parent?: Address;
}

class Cell {
  instance?: Actor;
  readonly queue: Envelope[] = [];
  head = 0;
  running = false;
  stopping = false;
  readonly children = new Set<Cell>();
  idleTimer?: ReturnType<typeof setTimeout>;
  private idleWaiters: (() => void)[] = [];
  readonly stopped: Promise<void>;
  markStopped!: () => void;

  constructor(
    readonly address: Address,
    readonly parent: Cell | undefined,
    /** The previous generation of this name, still finishing. */
    readonly after: Promise<void> | undefined,
  ) {
    this.stopped = new Promise((resolve) => (this.markStopped = resolve));
  }

  get name(): string {
    return this.address.name;
  }

  pending(): number {
    return this.queue.length - this.head;
  }

  take(): Envelope | undefined {
    const envelope = this.queue[this.head];
    if (!envelope) return undefined;
    this.queue[this.head++] = undefined as unknown as Envelope;
    // Compact now and then so a long-lived busy actor does not keep a growing array.
    if (this.head > 64 && this.head * 2 > this.queue.length) {
      this.queue.splice(0, this.head);
      this.head = 0;
    }
    return envelope;
  }

  busy(): boolean {
    return this.running || this.pending() > 0;
  }

  whenIdle(): Promise<void> {
    if (!this.busy()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  wakeIdleWaiters(): void {
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const wake of waiters) wake();
  }
}

/** Marks code running inside an actor's message, so close() can let it finish its own asks. */
const insideMessage = new AsyncLocalStorage<true>();

const defaultOnError = (name: string, err: unknown) => console.error(`actor ${name}:`, err);

export class ActorSystem {
  private readonly mailboxLimit: number;
  private readonly idleMs: number;
  private readonly closeTimeoutMs: number;
  private readonly onError: (name: string, err: unknown) => void;
  /** Live actors by name; an actor being stopped is no longer here. */
  private readonly registry = new Map<string, Cell>();
  /** Every cell not yet fully stopped, live or stopping. */
  private readonly cells = new Set<Cell>();
  /** Names whose previous generation is still stopping. */
  private readonly stopping = new Map<string, Promise<void>>();
  private phase: "open" | "draining" | "closed" = "open";
  private closing?: Promise<void>;
  private readonly port: Port = {
    send: (address, envelope) => this.enqueue(address, envelope),
    report: (name, err) => this.onError(name, err),
  };

  constructor(options: ActorSystemOptions = {}) {
    this.mailboxLimit = options.mailboxLimit ?? DEFAULT_MAILBOX_LIMIT;
    this.idleMs = options.idleMs ?? DEFAULT_IDLE_MS;
    this.closeTimeoutMs = options.closeTimeoutMs ?? DEFAULT_CLOSE_TIMEOUT_MS;
    this.onError = options.onError ?? defaultOnError;
  }

  /** Get or create. The first caller's `create` wins; later ones are ignored while it lives. */
  actorOf<A extends Actor>(kind: string, key: string, create: () => A): ActorRef<A> {
    return this.refTo<A>({ kind, key, name: nameOf(kind, key), create });
  }

  /**
   * Like actorOf, but the actor is stopped when `parent` stops, and `parent` is not evicted
   * while it has children. Names are global: an existing actor of this name is returned as is.
   */
  childOf<A extends Actor>(parent: ActorRef<Actor>, kind: string, key: string, create: () => A): ActorRef<A> {
    if (!(parent instanceof RefImpl)) throw new Error("childOf needs a ref made by an ActorSystem");
    return this.refTo<A>({ kind, key, name: nameOf(kind, key), create, parent: parent.address });
  }

  has(kind: string, key: string): boolean {
    return this.registry.has(nameOf(kind, key));
  }

  size(): number {
    return this.registry.size;
  }

  /** Lets queued messages finish, stops the children, then runs onStop. */
  async stop(kind: string, key: string): Promise<void> {
    const name = nameOf(kind, key);
    const cell = this.registry.get(name);
    if (cell) return this.stopCell(cell);
    await this.stopping.get(name);
  }

  /** Finishes queued work (bounded by closeTimeoutMs), stops every actor, then refuses new work. */
  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    this.phase = "draining";
    const deadline = Date.now() + this.closeTimeoutMs;
    // Messages may ask other actors while draining, so wait until nothing is left anywhere.
    for (;;) {
      const busy = [...this.cells].filter((cell) => cell.busy());
      if (busy.length === 0) break;
      const finished = await withDeadline(Promise.all(busy.map((cell) => cell.whenIdle())), deadline);
      if (!finished) break;
    }
    this.phase = "closed";
    for (const cell of this.cells) {
      for (let envelope = cell.take(); envelope; envelope = cell.take()) {
        envelope.reject(new AppError("unavailable", `${cell.name} is shutting down, try again`));
      }
    }
    const roots = [...this.registry.values()].filter((cell) => !cell.parent || !this.cells.has(cell.parent));
    await Promise.all(roots.map((cell) => this.stopCell(cell, deadline)));
    await withDeadline(Promise.all([...this.stopping.values()]), deadline);
  }

  private refTo<A extends Actor>(address: Address): ActorRef<A> {
    return new RefImpl<A>(address, this.port);
  }

  private enqueue(address: Address, envelope: Envelope): void {
    if (!this.accepting()) {
      envelope.reject(new AppError("unavailable", `${address.name} is shutting down, try again`));
      return;
    }
    const cell = this.resolve(address);
    if (cell.pending() >= this.mailboxLimit) {
      envelope.reject(new AppError("unavailable", `${address.name} is busy, try again`));
      return;
    }
    cell.queue.push(envelope);
    this.clearIdle(cell);
    this.schedule(cell);
  }

  private schedule(cell: Cell): void {
    if (cell.running) return;
    cell.running = true;
    // Never run work inside the caller's stack: a tell returns before the work starts.
    queueMicrotask(() => void this.drain(cell));
  }

  private accepting(): boolean {
    if (this.phase === "open") return true;
    return this.phase === "draining" && insideMessage.getStore() === true;
  }

  private resolve(address: Address): Cell {
    const existing = this.registry.get(address.name);
    if (existing) return existing;
    const parent = address.parent ? this.resolve(address.parent) : undefined;
    const cell = new Cell(address, parent, this.stopping.get(address.name));
    this.registry.set(address.name, cell);
    this.cells.add(cell);
    if (parent) {
      parent.children.add(cell);
      this.clearIdle(parent);
    }
    // Start at once, even with no message yet: a parent that only hosts children still owns
    // state, and its onStop must run when it goes.
    this.schedule(cell);
    return cell;
  }

  private async drain(cell: Cell): Promise<void> {
    try {
      if (!cell.instance && !(await this.start(cell))) return;
      const actor = cell.instance!;
      for (let envelope = cell.take(); envelope; envelope = cell.take()) {
        try {
          envelope.resolve(await insideMessage.run(true, () => envelope.work(actor)));
        } catch (err) {
          envelope.reject(err);
        }
      }
    } finally {
      cell.running = false;
      cell.wakeIdleWaiters();
      this.armIdle(cell);
    }
  }

  /** Creates the instance and runs onStart; on failure the queued messages get the error. */
  private async start(cell: Cell): Promise<boolean> {
    try {
      await cell.after;
      const instance = cell.address.create();
      await (instance as ActorHooks).onStart?.();
      cell.instance = instance;
      return true;
    } catch (err) {
      this.onError(cell.name, err);
      for (let envelope = cell.take(); envelope; envelope = cell.take()) envelope.reject(err);
      // Forget this generation (it never started, so no onStop): the next message retries.
      this.forget(cell);
      for (const child of cell.children) void this.stopCell(child);
      cell.markStopped();
      return false;
    }
  }

  private armIdle(cell: Cell): void {
    if (cell.stopping || cell.busy() || cell.children.size > 0 || !this.registry.has(cell.name)) return;
    if (!Number.isFinite(this.idleMs) || this.phase !== "open") return;
    this.clearIdle(cell);
    cell.idleTimer = setTimeout(() => {
      cell.idleTimer = undefined;
      if (!cell.busy() && cell.children.size === 0) void this.stopCell(cell);
    }, this.idleMs);
    // An idle actor must not keep the process alive.
    cell.idleTimer.unref?.();
  }

  private clearIdle(cell: Cell): void {
    if (cell.idleTimer) clearTimeout(cell.idleTimer);
    cell.idleTimer = undefined;
  }

  private stopCell(cell: Cell, deadline?: number): Promise<void> {
    if (cell.stopping) return cell.stopped;
    cell.stopping = true;
    this.clearIdle(cell);
    if (this.registry.get(cell.name) === cell) this.registry.delete(cell.name);
    this.stopping.set(cell.name, cell.stopped);
    void this.finishStop(cell, deadline);
    return cell.stopped;
  }

  private async finishStop(cell: Cell, deadline: number | undefined): Promise<void> {
    try {
      const drained = await withDeadline(cell.whenIdle(), deadline);
      await Promise.all([...cell.children].map((child) => this.stopCell(child, deadline)));
      if (!drained) {
        // Running onStop beside a stuck message would break one-at-a-time; skip it instead.
        this.onError(cell.name, new Error(`${cell.name} still busy at shutdown; onStop skipped`));
      } else if (cell.instance) {
        await (cell.instance as ActorHooks).onStop?.();
      }
    } catch (err) {
      this.onError(cell.name, err);
    } finally {
      this.forget(cell);
      cell.markStopped();
    }
  }

  private forget(cell: Cell): void {
    this.cells.delete(cell);
    if (this.registry.get(cell.name) === cell) this.registry.delete(cell.name);
    if (this.stopping.get(cell.name) === cell.stopped) this.stopping.delete(cell.name);
    const parent = cell.parent;
    if (parent && parent.children.delete(cell)) this.armIdle(parent);
  }
}

/** What a ref may do to its system: hand over a message, report a failed tell. */
interface Port {
  send(address: Address, envelope: Envelope): void;
  report(name: string, err: unknown): void;
}

class RefImpl<A extends Actor> implements ActorRef<A> {
  readonly name: string;

  constructor(
    readonly address: Address,
    private readonly port: Port,
  ) {
    this.name = address.name;
  }

  ask<T>(work: (actor: A) => Promise<T> | T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      // The cell only ever hands this work the instance `create` made, which is an A.
      const run = work as unknown as Work;
      this.port.send(this.address, { work: run, resolve: resolve as (value: unknown) => void, reject });
    });
  }

  tell(work: (actor: A) => Promise<void> | void): void {
    this.ask(work).catch((err: unknown) => this.port.report(this.name, err));
  }
}

function nameOf(kind: string, key: string): string {
  return `${kind}:${key}`;
}

/** Resolves true when `promise` settles first, false when the deadline passes first. */
async function withDeadline(promise: Promise<unknown>, deadline: number | undefined): Promise<boolean> {
  if (deadline === undefined) {
    await promise;
    return true;
  }
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), Math.max(0, deadline - Date.now()));
  });
  try {
    return await Promise.race([promise.then(() => true as const), expired]);
  } finally {
    clearTimeout(timer);
  }
}
