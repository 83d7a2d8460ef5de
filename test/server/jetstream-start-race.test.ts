// Processes started together create the same JetStream streams at once (the update log's KV,
// the leases, the rate limits, the file store, the push workers' EVENTS). nats-server 2.9 can
// refuse the later creator with "subjects overlap with an existing stream" while the first is
// being made; start-up must ask again and find the stream, not exit (a rolling-upgrade run lost
// a process to it; eight clients opening one object store at once met it once in 160 tries, too
// rarely to test by).
import { afterAll, describe, expect, test } from "bun:test";
import { connect, type NatsConnection } from "nats";
import { onceJetStreamSettles } from "../../src/nats.ts";
import { MESSAGE_CREATED_SUBJECTS, natsNames } from "../../src/core/subjects.ts";
import { jetStreamQueue } from "../../src/queue/jetstream.ts";
import type { PlatformEvent } from "../../src/core/events.ts";

const natsUrl = process.env.NATS_URL;

describe.skipIf(!natsUrl)("JetStream start-up beside other processes", () => {
  let nc: NatsConnection | undefined;
  const tag = `race_${Date.now().toString(36)}`;
  afterAll(async () => {
    const jsm = await nc?.jetstreamManager();
    for (const name of [`${tag}_first`, `${tag}_second`, `${tag}_creating`, `${tag}_push_EVENTS`]) await jsm?.streams.delete(name).catch(() => undefined);
    await nc?.close();
  });

  test("a step the server refused for overlapping subjects runs again", async () => {
    nc = await connect({ servers: natsUrl! });
    const jsm = await nc.jetstreamManager();
    await jsm.streams.add({ name: `${tag}_first`, subjects: [`${tag}.>`] });
    let attempts = 0;
    const bound = await onceJetStreamSettles(async () => {
      attempts++;
      // The first attempt meets the server's real refusal; the next finds the stream that is there.
      if (attempts === 1) await jsm.streams.add({ name: `${tag}_second`, subjects: [`${tag}.>`] });
      return (await jsm.streams.info(`${tag}_first`)).config.name;
    });
    expect({ attempts, bound }).toEqual({ attempts: 2, bound: `${tag}_first` });
  });

  test("the push consumer waits for another process's EVENTS stream instead of failing", async () => {
    nc ??= await connect({ servers: natsUrl! });
    const jsm = await nc.jetstreamManager();
    // Its own prefix: the first test's stream holds every subject under `${tag}.`.
    const names = natsNames(`${tag}_push`);
    // Another process is still making a stream over these subjects: the server refuses ours (10065).
    await jsm.streams.add({ name: `${tag}_creating`, subjects: [names.wire(MESSAGE_CREATED_SUBJECTS)] });
    const handled: string[] = [];
    const consuming = jetStreamQueue(nc, (step) => onceJetStreamSettles(step), names).consumeIncoming(async (event) => void handled.push(event.kind), {
      name: `${tag}_push`, removeOnStop: true, onError: () => {},
    });
    await new Promise((resolve) => setTimeout(resolve, 600));
    await jsm.streams.delete(`${tag}_creating`);
    const consumer = await consuming;
    try {
      const event = { kind: "message_created", owner_id: "owner1" } as PlatformEvent;
      await nc.jetstream().publish(names.wire("events.owner1.message_created"), JSON.stringify(event));
      for (let i = 0; i < 100 && handled.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(handled).toEqual(["message_created"]);
    } finally {
      await consumer.stop();
    }
  });
});
