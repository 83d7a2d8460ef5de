// Processes started together create the same JetStream streams at once (the update log's KV,
// the leases, the rate limits, the file store). nats-server 2.9 can refuse the later creator
// with "subjects overlap with an existing stream" while the first is being made; start-up
// must ask again and find the stream, not exit (a rolling-upgrade run lost a process to it; eight
// clients opening one object store at once met it once in 160 tries, too rarely to test by).
import { afterAll, describe, expect, test } from "bun:test";
import { connect, type NatsConnection } from "nats";
import { onceJetStreamSettles } from "../../src/nats.ts";

const natsUrl = process.env.NATS_URL;

describe.skipIf(!natsUrl)("JetStream start-up beside other processes", () => {
  let nc: NatsConnection | undefined;
  const tag = `race_${Date.now().toString(36)}`;
  afterAll(async () => {
    const jsm = await nc?.jetstreamManager();
    for (const name of [`${tag}_first`, `${tag}_second`]) await jsm?.streams.delete(name).catch(() => undefined);
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
});
