// JetStream-only behaviour of the update log (the shared contract is in update-log.test.ts).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomUUID } from "node:crypto";
import { ErrorCode, headers, JSONCodec, type JetStreamClient, type JetStreamManager, type MsgHdrs, type MsgRequest } from "nats";
import { connectNats, type NatsConnection } from "../../src/nats.ts";
import {
  HDR_APPENDED_AT,
  HDR_UPDATE_ID,
  openJetStreamLog,
  UPDATES_STREAM,
  updatesSubject,
} from "../../src/updates/jetstream.ts";
import { BodyCache } from "../../src/updates/body-cache.ts";
import { bound, skippingOnce } from "./jetstream-fakes.ts";
import type { UpdateLog } from "../../src/updates/log.ts";

const natsUrl = process.env.NATS_URL;

describe.skipIf(!natsUrl)("jetstream update log", () => {
  let nc: NatsConnection;
  let jsm: JetStreamManager;
  let log: UpdateLog;
  beforeAll(async () => {
    nc = await connectNats(natsUrl!, "update-log-jetstream-test");
    jsm = await nc.jetstreamManager();
    log = await openJetStreamLog(nc);
  });
  afterAll(async () => {
    await log.close();
    await nc.close();
  });

  const stored = async (bot: string) => {
    const info = await jsm.streams.info(UPDATES_STREAM, { subjects_filter: updatesSubject(bot) });
    return info.state.subjects?.[updatesSubject(bot)] ?? 0;
  };

  test("opening twice is harmless and the stream has the documented shape", async () => {
    const again = await openJetStreamLog(nc);
    await again.close();
    const { config } = await jsm.streams.info(UPDATES_STREAM);
    expect(config.subjects).toEqual(["log.updates.*"]);
    expect(config.max_age).toBe(24 * 3600 * 1e9);
  });

  test("core wake-ups on updates.<bot> are not captured by the stream", async () => {
    const bot = randomUUID();
    nc.publish(`updates.${bot}`, JSONCodec().encode({ wake: true }));
    await nc.flush();
    await log.append(bot, { update_id: 1, payload: { n: 1 } });
    expect(await stored(bot)).toBe(1);
    expect((await log.read(bot, 0, 10)).map((u) => u.update_id)).toEqual([1]);
  });

  test("a repeat stored after the duplicate window is skipped by readers", async () => {
    const bot = randomUUID();
    await log.append(bot, { update_id: 1, payload: { n: 1 } });
    await log.append(bot, { update_id: 2, payload: { n: 2 } });
    // What the outbox relay does after the window: the same update under an id JetStream no longer remembers.
    const h = headers();
    h.set(HDR_UPDATE_ID, "1");
    h.set(HDR_APPENDED_AT, String(Date.now()));
    await nc.jetstream().publish(updatesSubject(bot), JSONCodec().encode({ n: "late" }), { headers: h, msgID: `${bot}:1:late` });
    // And a stray message without our headers.
    await nc.jetstream().publish(updatesSubject(bot), JSONCodec().encode({ stray: true }));
    expect(await stored(bot)).toBe(4);
    const got = await log.read(bot, 0, 10);
    expect(got.map((u) => u.update_id)).toEqual([1, 2]);
    expect(got[0]!.payload).toEqual({ n: 1 });
    expect(await log.pendingCount(bot)).toBe(2);
  });

  test("confirm and drop purge the bot's stored messages", async () => {
    const bot = randomUUID();
    for (let id = 1; id <= 4; id++) await log.append(bot, { update_id: id, payload: { n: id } });
    expect(await stored(bot)).toBe(4);
    await log.confirm(bot, 3);
    expect(await stored(bot)).toBe(2);
    await log.drop(bot);
    expect(await stored(bot)).toBe(0);
  });

  test("settling leaves a marker readers never see, erasure skips, and confirms purge", async () => {
    const bot = randomUUID();
    for (let id = 1; id <= 3; id++) await log.append(bot, { update_id: id, payload: { message: { chat: { id: 7 }, text: `m${id}` } } });
    await log.settle!(bot);
    expect(await stored(bot)).toBe(4);
    expect((await log.read(bot, 0, 10)).map((u) => u.update_id)).toEqual([1, 2, 3]);
    expect((await log.tail(bot, 10)).map((u) => u.update_id)).toEqual([1, 2, 3]);
    expect(await log.pendingCount(bot)).toBe(3);
    await log.settle!(bot);
    expect(await log.eraseChats(bot, ["7"])).toBe(3);
    expect(await log.read(bot, 0, 10)).toEqual([]);
    await log.append(bot, { update_id: 4, payload: { n: 4 } });
    expect((await log.read(bot, 0, 10)).map((u) => u.update_id)).toEqual([4]);
    await log.confirm(bot, 5);
    expect(await stored(bot)).toBe(0);
  });

  test("a message a leader just elected has not applied yet is read once settled, not forgotten", async () => {
    // A stream leader just elected (NATS before 2.11) answers 404 for a message its predecessor
    // acknowledged until it has applied it; the settle marker's acknowledgement means it has.
    let lagging = false;
    const realJsm = await nc.jetstreamManager();
    const realJs = nc.jetstream();
    const streams = bound(realJsm.streams, {
      getMessage: async (stream: string, query: MsgRequest) => {
        if (lagging && !(typeof query === "object" && "next_by_subj" in query)) throw Object.assign(new Error("no message found"), { code: ErrorCode.JetStream404NoMessages });
        return realJsm.streams.getMessage(stream, query);
      },
    });
    const js = bound(realJs, {
      publish: async (subject: string, data: Uint8Array, opts?: { headers?: MsgHdrs }) => {
        const ack = await realJs.publish(subject, data, opts);
        if (opts?.headers?.has("Settle")) lagging = false;
        return ack;
      },
    }) as JetStreamClient;
    const jsmOf = bound(realJsm, { streams });
    const lagged = bound(nc, { jetstreamManager: async () => jsmOf, jetstream: () => js });
    const other = await openJetStreamLog(lagged);
    try {
      const bot = randomUUID();
      for (let id = 1; id <= 3; id++) await other.append(bot, { update_id: id, payload: { n: id } });
      // Indexes 1-3 and remembers the body of 1 only (the one it returned).
      expect((await other.read(bot, 0, 1)).map((u) => u.update_id)).toEqual([1]);
      lagging = true;
      expect((await other.read(bot, 2, 10)).map((u) => u.update_id)).toEqual([2, 3]);
      expect(lagging).toBe(false);
    } finally {
      await other.close();
    }
  });

  test("a message a catch-up walked past is read after a settle, which re-indexes the subject", async () => {
    // A server answering "the next message on the subject from sequence S" with a later one
    // leaves the index past a message it never saw; the reader about to pass that gap settles.
    const skip = { seq: 0 };
    const realJsm = await nc.jetstreamManager();
    const streams = bound(realJsm.streams, {
      getMessage: skippingOnce(realJsm, skip),
    });
    const jsmOf = bound(realJsm, { streams });
    const skipping = bound(nc, { jetstreamManager: async () => jsmOf });
    const reader = await openJetStreamLog(skipping);
    try {
      const bot = randomUUID();
      await log.append(bot, { update_id: 1, payload: { n: 1 } });
      expect((await reader.read(bot, 0, 10)).map((u) => u.update_id)).toEqual([1]);
      await log.append(bot, { update_id: 2, payload: { n: 2 } });
      // Update 2's sequence: the next catch-up is answered with update 3 instead.
      skip.seq = (await jsm.streams.getMessage(UPDATES_STREAM, { last_by_subj: updatesSubject(bot) })).seq;
      await log.append(bot, { update_id: 3, payload: { n: 3 } });
      expect((await reader.read(bot, 0, 10)).map((u) => u.update_id)).toEqual([1, 3]);
      expect(skip.seq).toBe(0);
      await reader.settle!(bot);
      expect((await reader.read(bot, 0, 10)).map((u) => u.update_id)).toEqual([1, 2, 3]);
    } finally {
      await reader.close();
    }
  });

  test("a scan read on a replica still catching up indexes the leader's messages, and a confirm purges none it skipped", async () => {
    // A consumer of a replicated stream runs on any replica and reads its store: one restarted
    // and catching up started past messages the leader held; the index trusted it, and the next
    // confirm purged those messages on the leader (the cluster chaos loss, docs/decisions.md round 37).
    const realJsm = await nc.jetstreamManager();
    const realJs = nc.jetstream();
    const lagging = bound(realJs, {
      fetch: (...args: Parameters<typeof realJs.fetch>) => (async function* () {
        let n = 0;
        for await (const m of realJs.fetch(...args)) if (n++ >= 3) yield m; // the replica lacks the first three
      })(),
    }) as JetStreamClient;
    const replica = bound(nc, { jetstreamManager: async () => realJsm, jetstream: () => lagging });
    const reader = await openJetStreamLog(replica, { replicated: true });
    try {
      const bot = randomUUID();
      for (let id = 1; id <= 40; id++) await log.append(bot, { update_id: id, payload: { n: id } });
      expect((await reader.read(bot, 0, 100)).map((u) => u.update_id)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
      await reader.confirm(bot, 2);
      expect(await stored(bot)).toBe(39);
      expect((await log.read(bot, 0, 100)).map((u) => u.update_id)).toEqual(Array.from({ length: 39 }, (_, i) => i + 2));
    } finally {
      await reader.close();
    }
  });

  test("after the stream's leader changes, a confirm re-reads the bot's subject before it purges", async () => {
    // A new leader of NATS 2.9.10 numbered appends from below sequences its predecessor had
    // acknowledged: an index caught up past them never sees what lands there, and a purge below
    // its first pending update would take it. Here the index misses update 5 (the catch-up is
    // answered past it, as a renumbered sequence is never asked about again).
    let leader = "n1";
    const skip = { seq: 0 };
    const realJsm = await nc.jetstreamManager();
    const streams = bound(realJsm.streams, {
      info: async (...args: Parameters<typeof realJsm.streams.info>) => ({ ...(await realJsm.streams.info(...args)), cluster: { name: "c", leader } }),
      getMessage: skippingOnce(realJsm, skip),
    });
    const jsmOf = bound(realJsm, { streams });
    const reader = await openJetStreamLog(bound(nc, { jetstreamManager: async () => jsmOf }), { replicated: true });
    try {
      const bot = randomUUID();
      await log.append(bot, { update_id: 1, payload: { n: 1 } });
      expect((await reader.read(bot, 0, 10)).map((u) => u.update_id)).toEqual([1]);
      await reader.confirm(bot, 2); // purges under the leader n1
      await log.append(bot, { update_id: 5, payload: { n: 5 } });
      skip.seq = (await jsm.streams.getMessage(UPDATES_STREAM, { last_by_subj: updatesSubject(bot) })).seq;
      await log.append(bot, { update_id: 3, payload: { n: 3 } });
      expect((await reader.read(bot, 0, 10)).map((u) => u.update_id)).toEqual([3]);
      leader = "n2";
      await reader.confirm(bot, 4);
      expect((await log.read(bot, 0, 10)).map((u) => u.update_id)).toEqual([5]);
    } finally {
      await reader.close();
    }
  });

  test("a message numbered anew at an indexed sequence is not answered as the update indexed there", async () => {
    const realJsm = await nc.jetstreamManager();
    let renumbered: number | undefined;
    const streams = bound(realJsm.streams, {
      getMessage: async (stream: string, query: MsgRequest) => {
        const answer = await realJsm.streams.getMessage(stream, query);
        if (renumbered === undefined || (query as { seq?: number }).seq !== renumbered || "next_by_subj" in (query as object)) return answer;
        const h = headers();
        h.set(HDR_UPDATE_ID, "99");
        h.set(HDR_APPENDED_AT, String(Date.now()));
        return { ...answer, header: h, data: JSONCodec().encode({ n: "another" }) };
      },
    });
    const jsmOf = bound(realJsm, { streams });
    const reader = await openJetStreamLog(bound(nc, { jetstreamManager: async () => jsmOf }), { bodies: new BodyCache(0) });
    try {
      const bot = randomUUID();
      await log.append(bot, { update_id: 1, payload: { n: 1 } });
      await log.append(bot, { update_id: 2, payload: { n: 2 } });
      expect((await reader.read(bot, 0, 1)).map((u) => u.update_id)).toEqual([1]); // indexes 1 and 2
      renumbered = (await jsm.streams.getMessage(UPDATES_STREAM, { last_by_subj: updatesSubject(bot) })).seq;
      expect((await reader.read(bot, 0, 10)).map((u) => [u.update_id, u.payload.n])).toEqual([[1, 1]]);
    } finally {
      await reader.close();
    }
  });

  test("a reader's index stays right when another process confirms or messages vanish", async () => {
    const other = await connectNats(natsUrl!, "update-log-jetstream-test-2");
    const b = await openJetStreamLog(other);
    try {
      const bot = randomUUID();
      for (let id = 1; id <= 4; id++) await log.append(bot, { update_id: id, payload: { n: id } });
      expect((await log.read(bot, 0, 10)).map((u) => u.update_id)).toEqual([1, 2, 3, 4]); // index warm
      expect((await b.read(bot, 0, 10)).map((u) => u.update_id)).toEqual([1, 2, 3, 4]);
      await b.confirm(bot, 3);
      await b.append(bot, { update_id: 2, payload: { n: "relay" } });
      await b.append(bot, { update_id: 5, payload: { n: 5 } });
      expect((await log.read(bot, 0, 10)).map((u) => u.update_id)).toEqual([3, 4, 5]);
      // As if max_age removed everything behind the reader's back.
      await jsm.streams.purge(UPDATES_STREAM, { filter: updatesSubject(bot) });
      expect(await log.read(bot, 0, 10)).toEqual([]);
      expect(await log.pendingCount(bot)).toBe(0); // the read discarded what it found gone
      await b.append(bot, { update_id: 6, payload: { n: 6 } });
      expect((await log.read(bot, 0, 10)).map((u) => u.update_id)).toEqual([6]);
    } finally {
      await b.close();
      await other.close();
    }
  });

  test("confirms from two processes in turn never lower the watermark, and each purges what it passed", async () => {
    const other = await connectNats(natsUrl!, "update-log-jetstream-test-3");
    const b = await openJetStreamLog(other);
    try {
      const bot = randomUUID();
      for (let id = 1; id <= 8; id++) await log.append(bot, { update_id: id, payload: { n: id } });
      await log.confirm(bot, 3);
      await b.confirm(bot, 5);
      // This process last wrote 3: its compare-and-set on that revision fails, and it reads 5.
      await log.confirm(bot, 4);
      expect(await log.confirmedBelow(bot)).toBe(5);
      expect(await b.confirmedBelow(bot)).toBe(5);
      await log.confirm(bot, 7);
      expect(await b.confirmedBelow(bot)).toBe(7);
      expect((await b.read(bot, 0, 10)).map((u) => u.update_id)).toEqual([7, 8]);
      expect(await stored(bot)).toBe(2);
    } finally {
      await b.close();
      await other.close();
    }
  });

  test("a large backlog is read in order, page by page", async () => {
    const bot = randomUUID();
    const count = 300;
    const order = Array.from({ length: count }, (_, i) => i + 1).sort(() => Math.random() - 0.5);
    await Promise.all(order.map((id) => log.append(bot, { update_id: id, payload: { n: id } })));
    const seen: number[] = [];
    for (let offset = 0; ;) {
      const page = await log.read(bot, offset, 100);
      if (page.length === 0) break;
      expect(page.every((u) => u.payload.n === u.update_id)).toBe(true);
      seen.push(...page.map((u) => u.update_id));
      offset = page[page.length - 1]!.update_id + 1;
      await log.confirm(bot, offset);
    }
    expect(seen).toEqual(Array.from({ length: count }, (_, i) => i + 1));
    expect(await stored(bot)).toBe(0);
  });

  test("pending updates read again are answered from memory, not one request per update", async () => {
    const bot = randomUUID();
    for (let id = 1; id <= 40; id++) await log.append(bot, { update_id: id, payload: { n: id } });
    const readerConnection = await connectNats(natsUrl!, "update-log-reread-test");
    const remembered = new BodyCache();
    const reader = await openJetStreamLog(readerConnection, { bodies: remembered });
    try {
      const first = await reader.read(bot, 0, 100);
      expect(remembered.size).toBe(40);
      expect(first.map((u) => u.update_id)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
      const sentBefore = readerConnection.stats().outMsgs;
      const again = await reader.read(bot, 0, 100);
      // The watermark's read and the catch-up's probe; before, also one request per body (40).
      expect(readerConnection.stats().outMsgs - sentBefore).toBeLessThanOrEqual(4);
      expect(again).toEqual(first);
      // Confirmed updates are not served from memory: the watermark prunes them first.
      await log.confirm(bot, 31);
      expect((await reader.read(bot, 0, 100)).map((u) => u.update_id)).toEqual([...Array.from({ length: 10 }, (_, i) => 31 + i)]);
      // ...and their bodies leave the memory: it holds what is pending, not past traffic (a
      // webhook process kept one object and one buffer per delivered update, up to 8 MB).
      expect(remembered.size).toBe(10);
      await log.confirm(bot, 41);
      expect(await reader.read(bot, 0, 100)).toEqual([]);
      expect(remembered.size).toBe(0);
    } finally {
      await reader.close();
      await readerConnection.close();
    }
  });

  test("a chat erased by another process is never answered from this one's memory", async () => {
    const bot = randomUUID();
    const say = (id: number, chat: string) => log.append(bot, { update_id: id, payload: { message: { chat: { id: chat }, text: `m${id}` } } });
    await say(1, "kept");
    await say(2, "erased");
    await say(3, "kept");
    const otherConnection = await connectNats(natsUrl!, "update-log-erase-test");
    const other = await openJetStreamLog(otherConnection);
    try {
      expect((await log.read(bot, 0, 10)).map((u) => u.update_id)).toEqual([1, 2, 3]); // remembered here
      expect(await other.eraseChats(bot, ["erased"])).toBe(1);
      expect((await log.read(bot, 0, 10)).map((u) => u.update_id)).toEqual([1, 3]);
      expect(await other.eraseChats(bot, ["erased"])).toBe(0);
      await say(4, "kept");
      expect((await log.read(bot, 0, 10)).map((u) => u.update_id)).toEqual([1, 3, 4]);
    } finally {
      await other.close();
      await otherConnection.close();
    }
  });

  test("reads leave no consumers behind", async () => {
    const bot = randomUUID();
    const own = await openJetStreamLog(nc);
    // More than a handful of messages, so the read goes through a scan consumer.
    for (let id = 1; id <= 20; id++) await own.append(bot, { update_id: id, payload: {} });
    await own.read(bot, 0, 10);
    await own.pendingCount(bot);
    await own.close();
    const left: string[] = [];
    for await (const c of await jsm.consumers.list(UPDATES_STREAM)) {
      if (c.config.filter_subject === updatesSubject(bot)) left.push(c.name);
    }
    expect(left).toEqual([]);
  });
});
