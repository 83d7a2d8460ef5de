import { afterEach, describe, expect, test } from "bun:test";
import { type Actor, ActorSystem, type ActorSystemOptions } from "../../src/actors/system.ts";
import { AppError } from "../../src/core/errors.ts";

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

class Counter implements Actor {
  value = 0;
  inFlight = 0;
  maxInFlight = 0;
  started = 0;
  stopped = 0;
  onStart() {
    this.started++;
  }
  onStop() {
    this.stopped++;
  }
  /** Read-modify-write across an await: loses updates unless messages run one at a time. */
  async bump(delayMs: number): Promise<number> {
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    const seen = this.value;
    await sleep(delayMs);
    this.value = seen + 1;
    this.inFlight--;
    return this.value;
  }
}

let systems: ActorSystem[] = [];
const errors: [string, unknown][] = [];

function system(options: ActorSystemOptions = {}): ActorSystem {
  const s = new ActorSystem({ onError: (name, err) => errors.push([name, err]), ...options });
  systems.push(s);
  return s;
}

afterEach(async () => {
  await Promise.all(systems.map((s) => s.close()));
  systems = [];
  errors.length = 0;
});

describe("ActorSystem", () => {
  test("names actors after kind and key and creates one per key", async () => {
    const s = system();
    let created = 0;
    const make = () => (created++, new Counter());
    const a = s.actorOf("counter", "a", make);
    const again = s.actorOf("counter", "a", make);
    expect(a.name).toBe("counter:a");
    await Promise.all([a.ask((c) => c.bump(0)), again.ask((c) => c.bump(0))]);
    expect(created).toBe(1);
    expect(s.has("counter", "a")).toBe(true);
    expect(s.has("counter", "b")).toBe(false);
    expect(s.size()).toBe(1);
  });

  test("runs one message at a time per actor, in FIFO order", async () => {
    const s = system();
    const ref = s.actorOf("counter", "serial", () => new Counter());
    const order: number[] = [];
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        ref.ask(async (c) => {
          order.push(i);
          return c.bump(i % 3);
        }),
      ),
    );
    expect(order).toEqual(Array.from({ length: 50 }, (_, i) => i));
    expect(results).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    expect(await ref.ask((c) => c.maxInFlight)).toBe(1);
  });

  test("different actors run concurrently", async () => {
    const s = system();
    const refs = ["a", "b", "c", "d"].map((key) => s.actorOf("counter", key, () => new Counter()));
    let running = 0;
    let peak = 0;
    await Promise.all(
      refs.map((ref) =>
        ref.ask(async () => {
          peak = Math.max(peak, ++running);
          await sleep(100);
          running--;
        }),
      ),
    );
    expect(peak).toBe(4);
  });

  test("a failing message rejects only its own ask; the actor keeps serving", async () => {
    const s = system();
    const ref = s.actorOf("counter", "faulty", () => new Counter());
    const other = s.actorOf("counter", "bystander", () => new Counter());
    const first = ref.ask((c) => c.bump(5));
    const failing = ref
      .ask(async () => {
        await sleep(1);
        throw new Error("boom");
      })
      .catch((err: Error) => err.message);
    const syncFailing = ref
      .ask(() => {
        throw new Error("sync boom");
      })
      .catch((err: Error) => err.message);
    const after = ref.ask((c) => c.bump(0));
    const elsewhere = other.ask((c) => c.bump(0));
    expect(await first).toBe(1);
    expect(await failing).toBe("boom");
    expect(await syncFailing).toBe("sync boom");
    expect(await after).toBe(2);
    expect(await elsewhere).toBe(1);
    expect(await ref.ask((c) => c.started)).toBe(1);
  });

  test("tell never throws; its failure goes to onError", async () => {
    const s = system();
    const ref = s.actorOf("counter", "teller", () => new Counter());
    ref.tell(() => {
      throw new Error("told boom");
    });
    ref.tell(async (c) => void (await c.bump(0)));
    expect(await ref.ask((c) => c.value)).toBe(1);
    expect(errors.map(([name, err]) => [name, (err as Error).message])).toEqual([["counter:teller", "told boom"]]);
  });

  test("tell does not run the work in the caller's stack", async () => {
    const s = system();
    const ref = s.actorOf("counter", "later", () => new Counter());
    let ran = false;
    ref.tell(() => {
      ran = true;
    });
    expect(ran).toBe(false);
    await ref.ask(() => undefined);
    expect(ran).toBe(true);
  });

  test("a full mailbox rejects at once with code unavailable instead of growing", async () => {
    const s = system({ mailboxLimit: 3 });
    const ref = s.actorOf("counter", "full", () => new Counter());
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const running = ref.ask(() => gate);
    await sleep(0); // let the first message leave the mailbox and start
    const queued = [1, 2, 3].map(() => ref.ask((c) => c.bump(0)));
    const refused = await ref.ask((c) => c.bump(0)).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(AppError);
    expect((refused as AppError).code).toBe("unavailable");
    expect((refused as AppError).status).toBe(503);
    expect((refused as AppError).message).toContain("busy, try again");
    ref.tell(() => undefined);
    release();
    await sleep(0);
    expect((errors[0]?.[1] as AppError).code).toBe("unavailable");
    await running;
    expect(await Promise.all(queued)).toEqual([1, 2, 3]);
    expect(await ref.ask((c) => c.value)).toBe(3);
  });

  test("an idle actor is stopped and removed; the next use makes a fresh one", async () => {
    const s = system({ idleMs: 100 });
    const instances: Counter[] = [];
    const make = () => {
      const c = new Counter();
      instances.push(c);
      return c;
    };
    const ref = s.actorOf("counter", "idle", make);
    await ref.ask((c) => c.bump(0));
    await sleep(60);
    await ref.ask((c) => c.bump(0)); // activity postpones eviction
    await sleep(60);
    expect(s.has("counter", "idle")).toBe(true);
    await sleep(150);
    expect(s.has("counter", "idle")).toBe(false);
    expect(s.size()).toBe(0);
    expect(instances[0]?.stopped).toBe(1);
    // The old ref still works: it addresses the key, not the evicted instance.
    expect(await ref.ask((c) => c.bump(0))).toBe(1);
    expect(await s.actorOf("counter", "idle", make).ask((c) => c.value)).toBe(1);
    expect(instances).toHaveLength(2);
    expect(instances[1]?.started).toBe(1);
  });

  test("children stop with their parent, and keep the parent from idling out", async () => {
    const s = system({ idleMs: 50 });
    const parentActor = new Counter();
    const parent = s.actorOf("bot", "p", () => parentActor);
    const kids = [new Counter(), new Counter()];
    const children = kids.map((kid, i) => s.childOf(parent, "chat", `c${i}`, () => kid));
    await Promise.all(children.map((child) => child.ask((c) => c.bump(0))));
    expect(s.size()).toBe(3);
    // Keep the children busy past the parent's idle time: the parent must stay.
    const busy = children.map((child) => child.ask(() => sleep(150)));
    await sleep(120);
    expect(s.has("bot", "p")).toBe(true);
    await Promise.all(busy);
    await s.stop("bot", "p");
    expect(kids.map((kid) => kid.stopped)).toEqual([1, 1]);
    expect(parentActor.stopped).toBe(1);
    expect(s.size()).toBe(0);
  });

  test("stop lets queued messages finish, then the parent's onStop runs after the children's", async () => {
    const s = system();
    const events: string[] = [];
    const actor = (label: string): Actor => ({ onStop: () => void events.push(`stop ${label}`) });
    const parent = s.actorOf("bot", "order", () => actor("parent"));
    const child = s.childOf(parent, "chat", "order", () => actor("child"));
    const queued = [1, 2].map((i) => child.ask(async () => (await sleep(5), events.push(`work ${i}`))));
    await parent.ask(() => undefined);
    await s.stop("bot", "order");
    await Promise.all(queued);
    expect(events).toEqual(["work 1", "work 2", "stop child", "stop parent"]);
  });

  test("a new generation of a name starts only after the old one has stopped", async () => {
    const s = system();
    const events: string[] = [];
    let generation = 0;
    const make = (): Actor => {
      const n = ++generation;
      events.push(`create ${n}`);
      return { onStop: async () => (await sleep(20), void events.push(`stop ${n}`)) };
    };
    const ref = s.actorOf("gen", "x", make);
    await ref.ask(() => undefined);
    const stopping = s.stop("gen", "x");
    await ref.ask(() => void events.push("work on 2"));
    await stopping;
    expect(events).toEqual(["create 1", "stop 1", "create 2", "work on 2"]);
  });

  test("a failing onStart rejects the queued messages and the next message retries", async () => {
    const s = system();
    let attempts = 0;
    const ref = s.actorOf("flaky", "start", () => ({
      onStart() {
        if (++attempts === 1) throw new Error("cannot load");
      },
    }));
    const early = [ref.ask(() => 1), ref.ask(() => 2)].map((p) => p.catch((err: Error) => err.message));
    expect(await Promise.all(early)).toEqual(["cannot load", "cannot load"]);
    expect(await ref.ask(() => 3)).toBe(3);
    expect(attempts).toBe(2);
  });

  test("close() drains queued work, lets it ask other actors, stops all actors, then refuses", async () => {
    const s = system();
    const counter = new Counter();
    const ref = s.actorOf("counter", "drain", () => counter);
    const helper = s.actorOf("counter", "helper", () => new Counter());
    const queued = Array.from({ length: 5 }, () => ref.ask((c) => c.bump(5)));
    const nested = ref.ask(() => helper.ask((h) => h.bump(0)));
    const closing = s.close();
    const refusedWhileDraining = await ref.ask(() => "late").catch((err: unknown) => err);
    expect((refusedWhileDraining as AppError).code).toBe("unavailable");
    expect(await Promise.all(queued)).toEqual([1, 2, 3, 4, 5]);
    expect(await nested).toBe(1);
    // Having awaited an actor's answer does not make this caller "inside" an actor.
    const stillRefused = await ref.ask(() => "late").catch((err: unknown) => err);
    expect((stillRefused as AppError).code).toBe("unavailable");
    await closing;
    expect(counter.stopped).toBe(1);
    expect(s.size()).toBe(0);
    const refused = await s
      .actorOf("counter", "new", () => new Counter())
      .ask(() => "never")
      .catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(AppError);
    expect((refused as AppError).code).toBe("unavailable");
  });

  test("close() gives up on stuck work after its timeout", async () => {
    const s = system({ closeTimeoutMs: 50 });
    const ref = s.actorOf("counter", "stuck", () => new Counter());
    void ref.ask(() => new Promise(() => undefined));
    const queuedBehind = ref.ask(() => "never runs").catch((err: unknown) => err);
    await sleep(0);
    const started = Date.now();
    await s.close();
    expect(Date.now() - started).toBeLessThan(2000);
    expect(((await queuedBehind) as AppError).code).toBe("unavailable");
    expect(errors.some(([name]) => name === "counter:stuck")).toBe(true);
  });
});
