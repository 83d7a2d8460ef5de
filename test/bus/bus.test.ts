// One contract, every implementation: the memory bus always; with NATS_URL also the NATS bus,
// once on one connection and once across two connections (two processes).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomUUID } from "node:crypto";
import { type BusOptions, type EventBus, MAX_EVENT_BYTES } from "../../src/bus/bus.ts";
import { memoryBus } from "../../src/bus/memory.ts";
import { natsBus } from "../../src/bus/nats.ts";
import { AppError } from "../../src/core/errors.ts";
import { connectNats, type NatsConnection } from "../../src/nats.ts";

/** Generous: a loaded CI machine, never a timing assertion. */
const WAIT_MS = 5000;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function waitUntil(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(2);
  }
}

/** A subject prefix of its own per test, so runs and tests never see each other's events. */
const prefix = () => `t${randomUUID().replaceAll("-", "")}`;

interface Fixture {
  name: string;
  /** Whether publisher and subscriber share one bus (and so one connection). */
  sameBus: boolean;
  setup(onError: BusOptions["onError"]): Promise<{ publisher: EventBus; subscriber: EventBus }>;
  /** A fresh bus on the same transport, for tests that close it. */
  open(): EventBus;
  teardown(): Promise<void>;
}

function memoryFixture(): Fixture {
  let bus: EventBus | undefined;
  return {
    name: "memory",
    sameBus: true,
    async setup(onError) {
      bus = memoryBus({ onError });
      return { publisher: bus, subscriber: bus };
    },
    open: () => memoryBus(),
    teardown: async () => bus?.close(),
  };
}

function natsFixture(url: string, cross: boolean): Fixture {
  const connections: NatsConnection[] = [];
  const buses: EventBus[] = [];
  return {
    name: cross ? "nats, two connections" : "nats, one connection",
    sameBus: !cross,
    async setup(onError) {
      const a = await connectNats(url, "bus-test-publisher");
      connections.push(a);
      const publisher = natsBus(a, { onError });
      buses.push(publisher);
      if (!cross) return { publisher, subscriber: publisher };
      const b = await connectNats(url, "bus-test-subscriber");
      connections.push(b);
      const subscriber = natsBus(b, { onError });
      buses.push(subscriber);
      return { publisher, subscriber };
    },
    open() {
      const bus = natsBus(connections[0]!);
      buses.push(bus);
      return bus;
    },
    async teardown() {
      await Promise.all(buses.map((bus) => bus.close()));
      await Promise.all(connections.map((nc) => nc.close()));
    },
  };
}

const fixtures: Fixture[] = [memoryFixture()];
if (process.env.NATS_URL) {
  fixtures.push(natsFixture(process.env.NATS_URL, false), natsFixture(process.env.NATS_URL, true));
}

for (const fixture of fixtures) {
  describe(`EventBus contract: ${fixture.name}`, () => {
    let publisher: EventBus;
    let subscriber: EventBus;
    const errors: { subject: string; err: unknown }[] = [];

    beforeAll(async () => {
      ({ publisher, subscriber } = await fixture.setup((subject, err) => errors.push({ subject, err })));
    });
    afterAll(() => fixture.teardown());

    /** Subscribes and waits until the subscription is live at the broker. */
    async function listen(subject: string) {
      const received: { data: unknown; subject: string }[] = [];
      const unsubscribe = subscriber.subscribe(subject, (data, concrete) => void received.push({ data, subject: concrete }));
      await subscriber.flush();
      return { received, unsubscribe, subjects: () => received.map((event) => event.subject) };
    }

    /**
     * Proves a negative without sleeping: events from one publisher reach one subscriber in
     * order, so once a later sentinel has arrived every earlier event has been handed over.
     */
    async function settle(p: string) {
      const sentinel = await listen(`${p}.sentinel`);
      await publisher.publish(`${p}.sentinel`, "done");
      await waitUntil(() => sentinel.received.length === 1, "the sentinel");
      sentinel.unsubscribe();
    }

    test("delivers a decoded copy of the data with the concrete subject", async () => {
      const p = prefix();
      const sink = await listen(`${p}.events.owner.message_created`);
      const data = { kind: "message_created", n: 1, nested: { text: "héllo ✓" }, list: [1, null] };
      await publisher.publish(`${p}.events.owner.message_created`, data);
      data.n = 2; // the subscriber must not see the publisher's later changes
      await waitUntil(() => sink.received.length === 1, "the event");
      expect(sink.received[0]).toEqual({
        subject: `${p}.events.owner.message_created`,
        data: { kind: "message_created", n: 1, nested: { text: "héllo ✓" }, list: [1, null] },
      });
      expect(sink.received[0]?.data).not.toBe(data);
    });

    test("`*` matches exactly one token", async () => {
      const p = prefix();
      const sink = await listen(`${p}.events.*.message_created`);
      for (const subject of [
        `${p}.events.o1.message_created`,
        `${p}.events.o1.x.message_created`,
        `${p}.events.o1.conversation_updated`,
        `${p}.events.message_created`,
        `${p}.events.o2.message_created`,
      ]) {
        await publisher.publish(subject, {});
      }
      await settle(p);
      expect(sink.subjects()).toEqual([`${p}.events.o1.message_created`, `${p}.events.o2.message_created`]);
    });

    test("`>` matches one or more trailing tokens", async () => {
      const p = prefix();
      const sink = await listen(`${p}.updates.>`);
      for (const subject of [`${p}.updates`, `${p}.updates.b1`, `${p}.updates.b1.x.y`, `${p}.other.b1`]) {
        await publisher.publish(subject, {});
      }
      await settle(p);
      expect(sink.subjects()).toEqual([`${p}.updates.b1`, `${p}.updates.b1.x.y`]);
    });

    test("unsubscribe stops delivery, and only for that subscription", async () => {
      const p = prefix();
      const leaving = await listen(`${p}.x`);
      const staying = await listen(`${p}.x`);
      await publisher.publish(`${p}.x`, 1);
      await waitUntil(() => leaving.received.length === 1 && staying.received.length === 1, "the first event");
      leaving.unsubscribe();
      leaving.unsubscribe(); // twice is harmless
      await publisher.publish(`${p}.x`, 2);
      await settle(p);
      expect(leaving.received.map((event) => event.data)).toEqual([1]);
      expect(staying.received.map((event) => event.data)).toEqual([1, 2]);
    });

    test("a throwing or rejecting handler breaks neither publish nor other handlers", async () => {
      const p = prefix();
      errors.length = 0;
      subscriber.subscribe(`${p}.boom`, () => {
        throw new Error("handler threw");
      });
      subscriber.subscribe(`${p}.boom`, async () => {
        throw new Error("handler rejected");
      });
      const healthy = await listen(`${p}.boom`);
      for (const n of [1, 2, 3]) await publisher.publish(`${p}.boom`, n);
      await waitUntil(() => healthy.received.length === 3 && errors.length === 6, "deliveries and errors");
      expect(healthy.received.map((event) => event.data)).toEqual([1, 2, 3]);
      expect(errors.every((e) => e.subject === `${p}.boom`)).toBe(true);
      const messages = errors.map((e) => (e.err as Error).message);
      expect(messages.filter((m) => m === "handler threw")).toHaveLength(3);
      expect(messages.filter((m) => m === "handler rejected")).toHaveLength(3);
    });

    test("events from one publisher on one subject arrive in order, to every subscriber", async () => {
      const p = prefix();
      const first = await listen(`${p}.updates.bot`);
      const second = await listen(`${p}.updates.*`);
      const count = 300;
      // Not awaited one by one: order must hold for publishes in flight together too.
      await Promise.all(Array.from({ length: count }, (_, n) => publisher.publish(`${p}.updates.bot`, { n })));
      await waitUntil(() => first.received.length === count && second.received.length === count, "all events");
      const expected = Array.from({ length: count }, (_, n) => ({ n }));
      expect(first.received.map((event) => event.data)).toEqual(expected);
      expect(second.received.map((event) => event.data)).toEqual(expected);
    });

    test("handlers never run inside publish()", async () => {
      const p = prefix();
      let publishReturned = false;
      const seen: boolean[] = [];
      subscriber.subscribe(`${p}.async`, () => void seen.push(publishReturned));
      await subscriber.flush();
      const publishing = publisher.publish(`${p}.async`, {});
      publishReturned = true;
      await publishing;
      await waitUntil(() => seen.length === 1, "the event");
      expect(seen).toEqual([true]);
    });

    test.if(fixture.sameBus)("a publish straight after subscribe on the same bus is delivered", async () => {
      const p = prefix();
      const received: unknown[] = [];
      subscriber.subscribe(`${p}.now`, (data) => void received.push(data));
      await publisher.publish(`${p}.now`, "first");
      await waitUntil(() => received.length === 1, "the event");
      expect(received).toEqual(["first"]);
    });

    test("refuses wildcard or malformed subjects and non-JSON data", async () => {
      const p = prefix();
      for (const subject of [`${p}.*`, `${p}.>`, `${p}..x`, "", `${p}.a b`]) {
        await expect(publisher.publish(subject, {})).rejects.toThrow("invalid publish subject");
      }
      for (const subject of [`${p}.>.x`, `${p}.a*`, `${p}.`]) {
        expect(() => subscriber.subscribe(subject, () => undefined)).toThrow("invalid subscription subject");
      }
      await expect(publisher.publish(`${p}.x`, undefined)).rejects.toThrow("not JSON-serialisable");
      await expect(publisher.publish(`${p}.x`, { n: 1n })).rejects.toThrow();
      await expect(publisher.publish(`${p}.x`, "x".repeat(MAX_EVENT_BYTES + 1))).rejects.toThrow("larger than");
    });

    test("a closed bus refuses publish and subscribe with code unavailable", async () => {
      const bus = fixture.open();
      const p = prefix();
      bus.subscribe(`${p}.x`, () => undefined);
      await bus.close();
      const refused = await bus.publish(`${p}.x`, {}).catch((err: unknown) => err);
      expect(refused).toBeInstanceOf(AppError);
      expect((refused as AppError).code).toBe("unavailable");
      expect(() => bus.subscribe(`${p}.x`, () => undefined)).toThrow("closed");
      await bus.flush(); // harmless after close
    });
  });
}

const natsUrl = process.env.NATS_URL;
if (natsUrl) describe("NATS bus across processes", () => {
  const connections: NatsConnection[] = [];
  afterAll(() => Promise.all(connections.map((nc) => nc.close())));

  test("a long poll on one instance is woken by a publish on another", async () => {
    const url = natsUrl;
    const [web1, web2] = await Promise.all([connectNats(url, "bus-test-web-1"), connectNats(url, "bus-test-web-2")]);
    connections.push(web1, web2);
    const poller = natsBus(web1);
    const writer = natsBus(web2);
    const bot = randomUUID();
    const subject = `${prefix()}.updates.${bot}`;
    const woken = new Promise<unknown>((resolve) => poller.subscribe(subject, resolve));
    // The poller's side: once flush() resolved, no publish from elsewhere can be missed.
    await poller.flush();
    await writer.publish(subject, { bot, update_id: 7 });
    expect(await woken).toEqual({ bot, update_id: 7 });
    // The publisher closing straight after publishing still delivers: close drains.
    const last = new Promise<unknown>((resolve) => poller.subscribe(`${subject}.last`, resolve));
    await poller.flush();
    await writer.publish(`${subject}.last`, "bye");
    await web2.close();
    expect(await last).toBe("bye");
    await poller.close();
  });
});
