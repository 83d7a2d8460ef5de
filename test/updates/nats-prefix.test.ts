// NATS_PREFIX: two deployments on one NATS server, each with its own streams, buckets and
// subjects. A message accepted by one is in its update log and wakes its pollers; the other
// deployment's log, bus and streams never see it.
import { afterAll, describe, expect, test } from "bun:test";
import { connect, type NatsConnection } from "nats";
import { ALL_WAKE_SUBJECTS, natsNames } from "../../src/core/subjects.ts";
import type { Platform } from "../../src/platform.ts";
import { createTestBot, MODE, registerUser, testClient, testPlatform, type Client } from "../support/harness.ts";

const run = Math.random().toString(36).slice(2, 8);
const prefixA = `depa_${run}`;
const prefixB = `depb_${run}`;

let a: Client | undefined;
let b: Platform | undefined;
let nc: NatsConnection | undefined;

afterAll(async () => {
  await a?.platform.close();
  await b?.close();
  if (!nc) return;
  // Leave the shared server as found: drop both deployments' streams and buckets.
  const jsm = await nc.jetstreamManager();
  for (const prefix of [prefixA, prefixB]) {
    const names = natsNames(prefix);
    for (const stream of [names.updatesStream, names.eventsStream, ...[names.confirmedBucket, names.leasesBucket, names.rateLimitBucket].map((k) => `KV_${k}`)]) {
      await jsm.streams.delete(stream).catch(() => undefined);
    }
  }
  await nc.close();
});

describe.skipIf(MODE !== "production")("two deployments on one NATS server", () => {
  test("do not see each other's updates, wake-ups or events", async () => {
    a = await testClient({ natsPrefix: prefixA });
    b = await testPlatform({ natsPrefix: prefixB });
    const seenByB: string[] = [];
    b.bus.subscribe(ALL_WAKE_SUBJECTS, (_data, subject) => void seenByB.push(subject));
    b.bus.subscribe("events.>", (_data, subject) => void seenByB.push(subject));
    const seenByA: string[] = [];
    a.platform.bus.subscribe(ALL_WAKE_SUBJECTS, (_data, subject) => void seenByA.push(subject));
    await b.bus.flush();
    await a.platform.bus.flush();

    const user = await registerUser(a);
    const bot = await createTestBot(a, user);
    const sent = await a.post("/api/messages", { bot_id: bot.id, chat_id: "prefix-chat", text: "only for A" });
    expect(sent.status).toBe(200);

    const polled = await a.get(`/api/bots/${bot.id}/get-updates?timeout=0`, bot.token);
    expect(polled.body.result.map((u: any) => u.message.text)).toEqual(["only for A"]);
    // A's own wake-up arrived on A's bus (with the plain subject, the prefix stays on the wire)...
    await a.platform.bus.flush();
    for (let i = 0; i < 100 && seenByA.length === 0; i++) await Bun.sleep(20);
    expect(seenByA).toContain(`updates.${bot.id}`);
    // ...and by then B, on the same server, has heard nothing and holds nothing.
    await b.bus.flush();
    expect(seenByB).toEqual([]);
    expect(await b.updates.read(bot.id, 0, 100)).toEqual([]);

    nc = await connect({ servers: process.env.NATS_URL });
    const jsm = await nc.jetstreamManager();
    const stored = async (prefix: string) => {
      const names = natsNames(prefix);
      const info = await jsm.streams.info(names.updatesStream, { subjects_filter: names.updatesSubject(bot.id) });
      return { subjects: info.config.subjects, messages: info.state.subjects?.[names.updatesSubject(bot.id)] ?? 0 };
    };
    expect(await stored(prefixA)).toEqual({ subjects: [`${prefixA}.log.updates.*`], messages: 1 });
    expect(await stored(prefixB)).toEqual({ subjects: [`${prefixB}.log.updates.*`], messages: 0 });
  }, 60_000);
});
