// The update log on NATS JetStream (production; docs/design.md §2).
//
// Subjects: the stream UPDATES captures `log.updates.<bot_uuid>`, NOT `updates.<bot_uuid>`:
// the event bus publishes wake-ups for parked long polls on core `updates.<bot_uuid>`, and a
// stream on that subject space would store every wake-up as if it were an update.
//
// Each message carries the update_id and the append time in headers and the payload as its
// body; Nats-Msg-Id `<bot>:<update_id>` lets JetStream drop a repeat inside its duplicate
// window (not on a republish of an update the stream lost: the window may still hold the lost
// append's id, and the republish would be acknowledged as a repeat and dropped). Repeats after
// the window, republishes, and appends racing across processes, are handled by
// readers: the per-process index (jetstream-index.ts) knows every stored update_id of a bot,
// so a read returns the smallest pending ones ascending, each once (first copy wins).
//
// The confirmed watermark lives in the KV bucket UPDATES_CONFIRMED (key = bot uuid), raised
// by compare-and-set only. Purging alone cannot serve: once a bot's subject is purged empty,
// nothing would remember that a re-appended update had already been confirmed.
import {
  ErrorCode,
  headers as natsHeaders,
  JSONCodec,
  type JetStreamClient,
  type KV,
  type KvEntry,
  type NatsConnection,
} from "nats";
import {
  entryOf, HDR_APPENDED_AT, HDR_ERASED, HDR_SETTLE, HDR_UPDATE_ID, isNotFound, nextBySubject, StreamIndex, type Entry,
} from "./jetstream-index.ts";
import { NATS_REQUEST_TIMEOUT_MS } from "../nats.ts";
import { DEFAULT_NATS_NAMES, type NatsNames } from "../core/subjects.ts";
import { isWrongLastSequence } from "../core/jetstream-errors.ts";
import { messageOfUpdate } from "../core/updates.ts";
import { BodyCache } from "./body-cache.ts";
import { ensureStream } from "./jetstream-stream.ts";
import { clampLimit, UPDATE_RETENTION_MS, type LogOptions, type LogUpdate, type UpdateLog } from "./log.ts";

/** Names without NATS_PREFIX; a prefixed deployment passes its own `names`. */
export const UPDATES_STREAM = DEFAULT_NATS_NAMES.updatesStream;

/** Why: concurrent confirms of one bot retry their compare-and-set; more than this means something is wrong. */
const MAX_CAS_ATTEMPTS = 20;
/** Why: bounds the per-process memory of last known watermarks; past it the memory simply starts over. */
const MAX_KNOWN_WATERMARKS = 10_000;

export { HDR_APPENDED_AT, HDR_UPDATE_ID };

export const updatesSubject = DEFAULT_NATS_NAMES.updatesSubject;

export interface JetStreamLogOptions extends LogOptions {
  /** Stream replicas; 1 on a single server, 3 on a cluster. */
  replicas?: number;
  /** Stream, bucket and subject names (NATS_PREFIX). */
  names?: NatsNames;
  /** The memory of bodies read (a test passes its own to look at). */
  bodies?: BodyCache;
  /**
   * The stream has replicas (true when replicas > 1; a test on one server sets it): a scan's
   * consumer may read a replica, so the leader is asked about what it read, and a new leader may
   * number appends from below what its predecessor acknowledged, so a purge after a leader
   * change first re-reads the bot's subject.
   */
  replicated?: boolean;
  /** Told of each purge and what the index knew when it chose the bound (a debug log line). */
  onPurge?: (purge: PurgeRecord) => void;
}

/** One purge of a bot's subject: every message stored before `seq` went. */
export interface PurgeRecord {
  botId: string;
  /** The watermark: update_ids below it are confirmed. */
  below: number;
  seq: number;
  /** The first pending update_id the index knew (undefined: none), and its highest sequence. */
  firstPending: number | undefined;
  indexedTo: number;
}

const codec = JSONCodec<Record<string, unknown>>();
const utf8 = new TextEncoder();
const text = new TextDecoder();

const watermarkOf = (e: KvEntry | null): number => (e && e.operation === "PUT" ? Number(e.string()) || 0 : 0);

export async function openJetStreamLog(nc: NatsConnection, options: JetStreamLogOptions = {}): Promise<UpdateLog> {
  const now = options.now ?? Date.now;
  const jsm = await nc.jetstreamManager({ timeout: NATS_REQUEST_TIMEOUT_MS });
  const js: JetStreamClient = nc.jetstream({ timeout: NATS_REQUEST_TIMEOUT_MS });
  const names = options.names ?? DEFAULT_NATS_NAMES;
  const UPDATES_STREAM = names.updatesStream;
  const updatesSubject = names.updatesSubject;
  await ensureStream(jsm, options.replicas ?? 1, names);
  // Strict reads (no direct get): a lagging replica's older watermark would let a confirmed update repeat.
  const confirmed: KV = await js.views.kv(names.confirmedBucket, { history: 1, replicas: options.replicas ?? 1, allow_direct: false });
  const read = options.bodies ?? new BodyCache();
  // Erasures are rare: whoever met one forgets every remembered body, not only that bot's. An
  // entry the index lets go of (confirmed, expired, a repeat, gone) is never read again: its
  // body goes with it, so the memory holds what is pending, not the last 8 MB of traffic.
  const replicated = options.replicated ?? (options.replicas ?? 1) > 1;
  const index = new StreamIndex(jsm, js, names.updatesStream, names.updatesSubject, () => read.clear(), (seq) => read.drop(seq), replicated);
  /** The stream's leader at the last purge (replicated streams only): a purge under another forgets every index first. */
  let indexedLeader: string | undefined;

  let closed = false;
  const ensureOpen = () => {
    if (closed) throw new Error("update log is closed");
  };

  async function watermark(botId: string): Promise<number> {
    return watermarkOf(await confirmed.get(botId));
  }

  /**
   * The watermark this process last read or wrote per bot, with its revision. It only ever
   * rises, so it is a lower bound of the real one: a confirm tries its compare-and-set on it
   * without reading first (one round trip instead of two), and a failed one reads again.
   * Never used to answer a read (that needs the real value: a lower one would repeat updates).
   */
  const known = new Map<string, { value: number; revision: number | undefined }>();
  const remember = (botId: string, value: number, revision: number | undefined) => {
    if (known.size >= MAX_KNOWN_WATERMARKS) known.clear();
    known.set(botId, { value, revision });
  };

  /** Raises the bot's watermark to at least `below`; returns it and whether this call raised it. */
  async function raiseWatermark(botId: string, below: number): Promise<{ value: number; raised: boolean }> {
    for (let attempt = 1; ; attempt++) {
      let last = attempt === 1 ? known.get(botId) : undefined;
      if (!last) {
        const e = await confirmed.get(botId);
        remember(botId, watermarkOf(e), e?.revision);
        last = known.get(botId)!;
      }
      if (last.value >= below) return { value: last.value, raised: false };
      try {
        const revision = last.revision !== undefined
          ? await confirmed.update(botId, String(below), last.revision)
          : await confirmed.create(botId, String(below));
        remember(botId, below, revision);
        return { value: below, raised: true };
      } catch (err) {
        known.delete(botId);
        // Also a revision (or an absent key) another process has moved past since: read and retry.
        if (!isWrongLastSequence(err) || attempt >= MAX_CAS_ATTEMPTS) throw err;
      }
    }
  }

  /** Catches the index up; the bot's pending entries ascending by update_id, and bodies already read. */
  async function pending(botId: string): Promise<{ entries: Entry[]; fetched: Map<number, Uint8Array> }> {
    const [below, fetched] = await Promise.all([watermark(botId), index.catchUp(botId)]);
    const entries = index.live(botId, below, now() - UPDATE_RETENTION_MS).sort((a, b) => a.updateId - b.updateId);
    return { entries, fetched };
  }

  /**
   * What a read may take from memory: the bodies of `chosen` this process read before, less
   * those the stream no longer holds. A bot's subject loses its oldest messages (confirms purge
   * up to a sequence, max_age ages out the oldest, drop takes them all), so one request, "the
   * first message at or after the lowest remembered one", says which are gone. Only an erasure
   * deletes from the middle: a read that starts after it returned met its marker in the catch-up
   * before this, which emptied the memory (one already under way may still answer from it, as
   * it could have answered just before the erasure).
   */
  async function remembered(botId: string, chosen: Entry[], fetched: Map<number, Uint8Array>): Promise<Map<number, Uint8Array>> {
    const found = new Map<number, Uint8Array>();
    for (const e of chosen) {
      const body = fetched.has(e.seq) ? undefined : read.get(e.seq, e.updateId);
      if (body) found.set(e.seq, body);
    }
    if (found.size === 0) return found;
    const lowest = Math.min(...found.keys());
    let firstKept = Infinity;
    try {
      firstKept = (await jsm.streams.getMessage(UPDATES_STREAM, nextBySubject(updatesSubject(botId), lowest))).seq;
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    for (const seq of found.keys()) {
      if (seq >= firstKept) continue;
      found.delete(seq);
      read.drop(seq);
    }
    return found;
  }

  /**
   * A stream leader just elected (NATS before 2.11) answers reads before it has applied the
   * entries its predecessor acknowledged. It applies its log in order and acknowledges an
   * append once applied: when this marker's acknowledgement arrives, every earlier
   * acknowledged append is readable.
   */
  async function settle(botId: string): Promise<void> {
    await appendMarker(botId, HDR_SETTLE);
  }

  /**
   * A message on the bot's subject that is not an update (no update_id: the index skips it).
   * "{}": a process of the previous release decodes every message it erases from, and skips this one.
   */
  async function appendMarker(botId: string, header: string): Promise<void> {
    const marker = natsHeaders();
    marker.set(header, "1");
    await js.publish(updatesSubject(botId), utf8.encode("{}"), { headers: marker, expect: { streamName: UPDATES_STREAM } });
  }

  async function bodies(botId: string, chosen: Entry[], fetched: Map<number, Uint8Array>): Promise<LogUpdate[]> {
    const inMemory = await remembered(botId, chosen, fetched);
    let settled: Promise<void> | undefined;
    // The message at a sequence is the entry's only if it carries the entry's update_id: a new
    // leader may have numbered another append there (NATS 2.9.10 did, docs/decisions.md round 37).
    const stored = async (e: Entry) => {
      const sm = await jsm.streams.getMessage(UPDATES_STREAM, { seq: e.seq });
      if (sm.header?.get(HDR_UPDATE_ID) !== String(e.updateId)) throw Object.assign(new Error("another message at this sequence"), { code: ErrorCode.JetStream404NoMessages });
      return sm.data;
    };
    const got = await Promise.all(chosen.map(async (e): Promise<LogUpdate | undefined> => {
      let data = fetched.get(e.seq) ?? inMemory.get(e.seq);
      if (!data) {
        try {
          data = await stored(e).catch(async (err: unknown) => {
            if (!isNotFound(err)) throw err;
            // Indexed, so stored once: purged or aged out since (confirmed or expired), or not yet
            // applied by a leader just elected. Only the first two stay missing once settled.
            await (settled ??= settle(botId));
            return stored(e);
          });
        } catch (err) {
          if (isNotFound(err)) {
            index.discard(botId, e.seq);
            return undefined;
          }
          throw err;
        }
      }
      read.put(e.seq, e.updateId, data);
      // Decoded as text once: the payload is parsed from it and the text is kept for the answer.
      const json = text.decode(data);
      return { update_id: e.updateId, payload: JSON.parse(json) as Record<string, unknown>, json, date: Math.floor(e.appendedMs / 1000) };
    }));
    return got.filter((u): u is LogUpdate => u !== undefined);
  }

  /**
   * Purges the bot's messages stored before the first one still pending. Only below a
   * sequence already indexed: a message appended meanwhile has a higher one and is kept.
   * An index this process keeps already is not caught up first (one request less per
   * confirm): what was appended since is purged by a confirm after the next read.
   */
  async function purgeBelowPending(botId: string, below: number): Promise<void> {
    if (replicated) {
      // After a leader change the index may know sequences the new leader numbered anew: whatever
      // it holds there is invisible to it, and a purge would take it (docs/decisions.md round 37).
      const leader = (await jsm.streams.info(UPDATES_STREAM)).cluster?.leader;
      if (leader !== indexedLeader) {
        index.forgetAll();
        indexedLeader = leader;
      }
    }
    if (index.lastSeq(botId) === 0) await index.catchUp(botId);
    const live = index.live(botId, below, now() - UPDATE_RETENTION_MS);
    const seq = live[0]?.seq ?? index.lastSeq(botId) + 1;
    if (seq <= 1) return;
    await jsm.streams.purge(UPDATES_STREAM, { filter: updatesSubject(botId), seq });
    options.onPurge?.({ botId, below, seq, firstPending: live[0]?.updateId, indexedTo: index.lastSeq(botId) });
  }

  const log: UpdateLog = {
    async append(botId, update) {
      await log.appendMany(botId, [update]);
    },

    async appendMany(botId, updates) {
      ensureOpen();
      // Issued back to back on one connection, so JetStream stores them in this order; the
      // acks are awaited together.
      await Promise.all(updates.map((update) => {
        const h = natsHeaders();
        h.set(HDR_UPDATE_ID, String(update.update_id));
        h.set(HDR_APPENDED_AT, String(now()));
        return js.publish(updatesSubject(botId), update.json === undefined ? codec.encode(update.payload) : utf8.encode(update.json), {
          msgID: update.republished ? undefined : `${botId}:${update.update_id}`,
          headers: h,
          expect: { streamName: UPDATES_STREAM },
        });
      }));
    },

    async read(botId, fromUpdateId, limit) {
      ensureOpen();
      const n = clampLimit(limit);
      if (n === 0) return [];
      const { entries, fetched } = await pending(botId);
      return bodies(botId, entries.filter((e) => e.updateId >= fromUpdateId).slice(0, n), fetched);
    },

    async tail(botId, count) {
      ensureOpen();
      const n = clampLimit(count);
      if (n === 0) return [];
      const { entries, fetched } = await pending(botId);
      return bodies(botId, entries.slice(-n), fetched);
    },

    async confirm(botId, belowUpdateId) {
      ensureOpen();
      const { value, raised } = await raiseWatermark(botId, Math.floor(belowUpdateId));
      // Polls repeat the same offset: nothing new to purge then. (A purge that failed is
      // redone by the next higher confirm; until then readers skip those messages anyway.)
      if (raised) await purgeBelowPending(botId, value);
    },

    async confirmedBelow(botId) {
      ensureOpen();
      return watermark(botId);
    },

    async pendingCount(botId) {
      ensureOpen();
      return (await pending(botId)).entries.length;
    },

    async eraseChats(botId, chatIds) {
      ensureOpen();
      const chats = new Set(chatIds);
      let erased = 0;
      // A message acknowledged but not yet applied by a leader just elected would be walked past.
      await settle(botId);
      // Every message still stored on the bot's subject (confirmed ones not yet purged and
      // repeats too), not only the pending ones the index hands out.
      for (let seq = 1; ;) {
        let stored;
        try {
          stored = await jsm.streams.getMessage(UPDATES_STREAM, { next_by_subj: updatesSubject(botId), seq } as unknown as { seq: number });
        } catch (err) {
          if (isNotFound(err)) break;
          throw err;
        }
        const chat = stored.header?.has(HDR_ERASED) ? undefined : messageOfUpdate(codec.decode(stored.data))?.chat?.id;
        if (chat !== undefined && chats.has(String(chat))) {
          // erase: the server overwrites the stored bytes, not only the index entry.
          await jsm.streams.deleteMessage(UPDATES_STREAM, stored.seq, true);
          index.discard(botId, stored.seq); // its remembered body too, even if the index had pruned it
          erased++;
        }
        seq = stored.seq + 1;
      }
      if (erased > 0) await appendMarker(botId, HDR_ERASED);
      return erased;
    },

    async settle(botId) {
      ensureOpen();
      await settle(botId);
      // The gap may also be the index's own: a catch-up answered past a message (the cluster
      // chaos loss's cause is not known, docs/decisions.md round 36). Rare, so a rescan is cheap.
      index.forget(botId);
    },

    async lastAppended(botId) {
      ensureOpen();
      const stored = await index.lastStored(botId);
      return stored && entryOf(stored.seq, stored.header)?.updateId;
    },

    reindex() {
      index.forgetAll();
      read.clear();
    },

    async drop(botId) {
      ensureOpen();
      const { entries } = await pending(botId);
      // Expired ones need no watermark (they are never returned), only the purge below.
      const highest = entries.reduce((max, e) => Math.max(max, e.updateId), -1);
      const { value } = await raiseWatermark(botId, highest + 1);
      await purgeBelowPending(botId, value);
    },

    async close() {
      closed = true;
      await index.close();
    },
  };
  return log;
}
