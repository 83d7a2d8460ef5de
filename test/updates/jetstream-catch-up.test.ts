// What a process asks the server when it catches up with a bot it has never indexed
// (JetStream-only; the update log's shared contract is in update-log.test.ts).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomUUID } from "node:crypto";
import type { MsgRequest } from "nats";
import { connectNats, type NatsConnection } from "../../src/nats.ts";
import { openJetStreamLog } from "../../src/updates/jetstream.ts";
import type { UpdateLog } from "../../src/updates/log.ts";
import { bound } from "./jetstream-fakes.ts";

const natsUrl = process.env.NATS_URL;

/** A connection whose JetStream manager counts the consumers it makes and its message gets by kind. */
async function counting(nc: NatsConnection) {
  const counts = { consumers: 0, gets: {} as Record<string, number> };
  const jsm = await nc.jetstreamManager();
  const consumers = bound(jsm.consumers, {
    add: (...args: Parameters<typeof jsm.consumers.add>) => (counts.consumers++, jsm.consumers.add(...args)),
  });
  const streams = bound(jsm.streams, {
    getMessage: (stream: string, request: MsgRequest) => {
      const kind = Object.keys(request as object).filter((k) => k !== "seq")[0] ?? "seq";
      counts.gets[kind] = (counts.gets[kind] ?? 0) + 1;
      return jsm.streams.getMessage(stream, request);
    },
  });
  const counted = bound(jsm, { consumers, streams });
  return { conn: bound(nc, { jetstreamManager: async () => counted }), counts };
}

describe.skipIf(!natsUrl)("jetstream update log: a first catch-up", () => {
  let nc: NatsConnection;
  let log: UpdateLog;
  beforeAll(async () => {
    nc = await connectNats(natsUrl!, "update-log-catch-up-test");
    log = await openJetStreamLog(nc);
  });
  afterAll(async () => {
    await log.close();
    await nc.close();
  });

  test("an empty subject is answered by one request and no consumer; a backlog by one consumer, neither asking for the first message from sequence 1", async () => {
    const { conn, counts } = await counting(nc);
    const reader = await openJetStreamLog(conn);
    try {
      // Other bots' messages first: the bot's first message is not the stream's.
      for (let i = 0; i < 30; i++) await log.append(randomUUID(), { update_id: 1, payload: { other: i } });
      const bot = randomUUID();
      for (let i = 0; i < 3; i++) expect(await reader.read(bot, 0, 10)).toEqual([]);
      expect(await reader.pendingCount(bot)).toBe(0);
      expect(counts.consumers).toBe(0);
      // Each read asked for the subject's last message, never for its first from sequence 1.
      expect(counts.gets).toEqual({ last_by_subj: 4 });

      // Appended by another process: this one has never indexed the bot.
      for (let id = 1; id <= 20; id++) await log.append(bot, { update_id: id, payload: { n: id } });
      expect((await reader.read(bot, 0, 100)).map((u) => u.update_id)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
      expect(counts.consumers).toBe(1);
      expect(counts.gets).toEqual({ last_by_subj: 5 });

      // Indexed now: what comes next is walked to from where the index ends.
      await log.append(bot, { update_id: 21, payload: { n: 21 } });
      expect((await reader.read(bot, 21, 10)).map((u) => u.update_id)).toEqual([21]);
      expect(counts.consumers).toBe(1);
      expect(counts.gets.last_by_subj).toBe(5);
      expect(counts.gets.next_by_subj).toBeGreaterThan(0);
    } finally {
      await reader.close();
    }
  });
});
