// A per-process index of what each bot's subject in the UPDATES stream holds: for every
// stored message its stream sequence, update_id and append time, no bodies.
//
// Why an index: stream order is not update_id order (appends race across processes, the
// outbox relay republishes late), so a read must see every pending update_id of the bot
// before it can pick the smallest ones. Scanning the whole subject on every read costs
// O(backlog); the index makes it O(new messages): stream sequences only grow, so after
// catching up to sequence S nothing at or below S can appear later. What can disappear
// below S (purges by another process, max_age) is either under the confirmed watermark,
// expired, or met as a 404 when its body is fetched (and then discarded), so a stale index
// never returns anything wrong. (pendingCount alone may count a message the server aged out
// before our clock says it expired, until the next read meets it.)
import {
  AckPolicy,
  DeliverPolicy,
  ErrorCode,
  nanos,
  type JetStreamClient,
  type JetStreamManager,
  type MsgHdrs,
  type MsgRequest,
  type StoredMsg,
} from "nats";

/** Headers of every stored update: its update_id and its append time (ms since the epoch). */
export const HDR_UPDATE_ID = "Update-Id";
export const HDR_APPENDED_AT = "Appended-At";
/**
 * The header of the marker an erasure appends to the bot's subject once it has deleted messages
 * from its middle: every read catches up first, so a read that starts after the erasure returned
 * meets the marker, and its process forgets the bodies it remembers before answering from them.
 */
export const HDR_ERASED = "Erased";
/** The header of the marker `settle` appends: like the erasure's, never indexed (no update_id). */
export const HDR_SETTLE = "Settle";

/** Why: a few new messages are cheaper fetched one by one (bodies included) than through a consumer. */
const WALK_MAX_MESSAGES = 8;
/** Why: a scan consumer left behind by a crashed process is removed by the server soon after. */
const SCAN_CONSUMER_IDLE_MS = 30 * 1000;
/**
 * Why: a backlog's first read (a webhook worker starting on many bots) gets the bodies with
 * the scan instead of one request per update; beyond this many a read fetches the rest itself.
 */
const SCAN_MAX_BODIES = 1000;
/** Why: bounds the requests in flight while the leader is asked about a replica's scan. */
const LEADER_CHECKS_IN_FLIGHT = 256;
/** Why: a replica that keeps answering otherwise than the leader costs a consumer each time; past this many scans the catch-up walks. */
const MAX_SCANS_PER_CATCH_UP = 3;
/** Why: bounds the index's memory; a bot pushed out is simply rescanned on its next read. */
const MAX_INDEXED_BOTS = 10_000;

export interface Entry {
  seq: number;
  updateId: number;
  appendedMs: number;
}

interface BotIndex {
  /** Stream order; pruned of entries that can never be returned again. */
  entries: Entry[];
  /** Every message of the subject up to this sequence is in `entries` (or was pruned). */
  lastSeq: number;
  /** Serialises catch-ups of one bot, so no message is indexed twice. */
  lock: Promise<unknown>;
}

/**
 * "The first message on this subject at or after seq". The server answers it on the
 * leader-consistent STREAM.MSG.GET since 2.9; the client types it for direct get only.
 */
export const nextBySubject = (subject: string, seq: number) => ({ next_by_subj: subject, seq }) as unknown as MsgRequest;

export const isNotFound = (err: unknown) => (err as { code?: string })?.code === ErrorCode.JetStream404NoMessages;

/** A message without our headers was not written by append: it is never handed out. */
export function entryOf(seq: number, h: MsgHdrs | undefined): Entry | undefined {
  const updateId = Number(h?.get(HDR_UPDATE_ID) || NaN);
  const appendedMs = Number(h?.get(HDR_APPENDED_AT) || NaN);
  return Number.isSafeInteger(updateId) && Number.isFinite(appendedMs) ? { seq, updateId, appendedMs } : undefined;
}

export class StreamIndex {
  private readonly bots = new Map<string, BotIndex>();
  private readonly cleanups = new Set<Promise<unknown>>();

  constructor(
    private readonly jsm: JetStreamManager,
    private readonly js: JetStreamClient,
    private readonly stream: string,
    private readonly subjectOf: (botId: string) => string,
    /** Called when a catch-up meets an erasure's marker on the bot's subject. */
    private readonly onErased: (botId: string) => void = () => {},
    /** Called for each entry pruned and each sequence discarded (indexed or not): it is never handed out again. */
    private readonly onForgotten: (seq: number) => void = () => {},
    /** The stream has replicas: a scan's consumer may read one, so the leader checks what it read. */
    private readonly replicated = false,
  ) {}

  /**
   * Indexes every message stored on the bot's subject since the last catch-up. Returns the
   * bodies it happened to read on the way (by sequence), so the caller need not fetch them.
   */
  catchUp(botId: string): Promise<Map<number, Uint8Array>> {
    const idx = this.indexOf(botId);
    const run = idx.lock.then(() => this.walk(botId, idx));
    idx.lock = run.catch(() => undefined);
    return run;
  }

  /**
   * The entries that may still be returned, in stream order: update_id >= below, appended
   * after expiredAt, first copy of each update_id only. Prunes the rest for good (the
   * watermark only rises and time only passes). Synchronous, so no catch-up interleaves.
   */
  live(botId: string, below: number, expiredAt: number): Entry[] {
    const idx = this.indexOf(botId);
    const seen = new Set<number>();
    idx.entries = idx.entries.filter((e) => {
      if (e.updateId < below || e.appendedMs <= expiredAt || seen.has(e.updateId)) {
        this.onForgotten(e.seq);
        return false;
      }
      seen.add(e.updateId);
      return true;
    });
    return [...idx.entries];
  }

  /** Forgets a message found gone (purged elsewhere or aged out by the server). */
  discard(botId: string, seq: number): void {
    const idx = this.bots.get(botId);
    if (idx) idx.entries = idx.entries.filter((e) => e.seq !== seq);
    this.onForgotten(seq);
  }

  /**
   * Forgets all it knows of the bot: its next catch-up walks the subject from the start. For the
   * least recently read bot when the index is full, and for a reader about to pass a gap, in
   * case a catch-up walked past a message it was not shown (a server answering "the next
   * message on the subject" with a later one). A catch-up under way finishes on the forgotten
   * index, not on the new one.
   */
  forget(botId: string): void {
    const idx = this.bots.get(botId);
    if (!idx) return;
    this.bots.delete(botId);
    for (const e of idx.entries) this.onForgotten(e.seq);
  }

  /** Forgets every bot (a stream leader changed: what it numbered may differ from what was read). */
  forgetAll(): void {
    for (const botId of [...this.bots.keys()]) this.forget(botId);
  }

  /** The highest sequence indexed for the bot (0 before its first message). */
  lastSeq(botId: string): number {
    return this.indexOf(botId).lastSeq;
  }

  async close(): Promise<void> {
    await Promise.all([...this.cleanups]);
    this.bots.clear();
  }

  private indexOf(botId: string): BotIndex {
    let idx = this.bots.get(botId);
    if (idx) {
      // Least recently used first: re-inserting moves the bot to the end.
      this.bots.delete(botId);
    } else {
      idx = { entries: [], lastSeq: 0, lock: Promise.resolve() };
      if (this.bots.size >= MAX_INDEXED_BOTS) this.forget(this.bots.keys().next().value!);
    }
    this.bots.set(botId, idx);
    return idx;
  }

  private async walk(botId: string, idx: BotIndex): Promise<Map<number, Uint8Array>> {
    const fetched = new Map<number, Uint8Array>();
    // A bot never indexed here may have any backlog: one consumer reads it all at once, once a
    // first request has found anything at all. Most often the subject is empty (every update
    // confirmed and purged), and a consumer made and deleted on every read of such a bot cost
    // three requests where one answers (on a cluster, two of them through the meta leader).
    // That request asks for the subject's last message. Asking for its first (from sequence 1)
    // and starting the consumer after it cost NATS 2.9 half as much CPU again when a worker
    // caught up with 100 bots' backlogs, and fan-out a third (docs/decisions.md round 40).
    if (idx.lastSeq === 0 && !(await this.lastStored(botId))) return fetched;
    let steps = idx.lastSeq === 0 ? 0 : WALK_MAX_MESSAGES;
    for (let scans = 1; ; scans++) {
      for (let i = 0; i < steps; i++) {
        const sm = await this.nextStored(botId, idx.lastSeq + 1);
        if (!sm) return fetched; // caught up
        this.record(botId, idx, sm.seq, sm.header, sm.data, fetched);
      }
      if (await this.scan(botId, idx, fetched)) return fetched;
      // A replica's answer and the leader's differed: walk on from the leader's, and after a
      // few such scans walk all the way (slower, but every step is the leader's answer).
      steps = scans >= MAX_SCANS_PER_CATCH_UP ? Infinity : WALK_MAX_MESSAGES;
    }
  }

  /**
   * The stream leader's last message on the bot's subject; undefined when it holds none. Asked of
   * the leader (not a direct get): a replica catching up may lag.
   */
  async lastStored(botId: string): Promise<StoredMsg | undefined> {
    try {
      return await this.jsm.streams.getMessage(this.stream, { last_by_subj: this.subjectOf(botId) });
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  /** The stream leader's first message on the bot's subject at or after `seq`; undefined when none is. */
  private async nextStored(botId: string, seq: number): Promise<StoredMsg | undefined> {
    try {
      return await this.jsm.streams.getMessage(this.stream, nextBySubject(this.subjectOf(botId), seq));
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  /** Indexes one stored message (its body kept in `fetched` up to SCAN_MAX_BODIES). */
  private record(botId: string, idx: BotIndex, seq: number, h: MsgHdrs | undefined, data: Uint8Array, fetched: Map<number, Uint8Array>): void {
    if (h?.has(HDR_ERASED)) this.onErased(botId);
    const e = entryOf(seq, h);
    if (e) {
      idx.entries.push(e);
      if (fetched.size < SCAN_MAX_BODIES) fetched.set(seq, data);
    }
    idx.lastSeq = Math.max(idx.lastSeq, seq);
  }

  /**
   * The rest of a large backlog: one consumer from the next sequence. False when it stopped
   * early: the consumer named a sequence the stream leader does not hold there.
   */
  private async scan(botId: string, idx: BotIndex, fetched: Map<number, Uint8Array>): Promise<boolean> {
    const info = await this.jsm.consumers.add(this.stream, {
      filter_subject: this.subjectOf(botId),
      deliver_policy: DeliverPolicy.StartSequence,
      opt_start_seq: idx.lastSeq + 1,
      ack_policy: AckPolicy.None,
      mem_storage: true,
      inactive_threshold: nanos(SCAN_CONSUMER_IDLE_MS),
      // Its bodies would not be used: the leader's answers carry them.
      headers_only: this.replicated,
    });
    try {
      // num_pending counts what was stored when the consumer was made; later appends are
      // left for the next catch-up, which starts right after the last one indexed here.
      if (info.num_pending === 0) return true;
      const batch = this.js.fetch(this.stream, info.name, { batch: info.num_pending, no_wait: true });
      if (!this.replicated) {
        for await (const m of batch) this.record(botId, idx, m.seq, m.headers, m.data, fetched);
        return true;
      }
      const named: number[] = [];
      for await (const m of batch) named.push(m.seq);
      return await this.indexAsLeaderAnswers(botId, idx, named, fetched);
    } finally {
      // Not awaited: the reader need not wait for the server to forget the consumer.
      const p = this.jsm.consumers.delete(this.stream, info.name).catch(() => undefined);
      this.cleanups.add(p);
      void p.finally(() => this.cleanups.delete(p));
    }
  }

  /**
   * A consumer of a replicated stream may run on any replica and reads that replica's store: one
   * still catching up after a restart, asked to start at sequence 1024, started at 1699, past 339
   * pending updates the leader held, and a confirm then purged them (docs/decisions.md round 37).
   * So its sequences are only a plan: for each, the leader is asked for the next message after
   * the one before it, all at once (a walk asks one at a time), and only the leader's answers are
   * indexed, up to the first that differs.
   */
  private async indexAsLeaderAnswers(botId: string, idx: BotIndex, named: number[], fetched: Map<number, Uint8Array>): Promise<boolean> {
    for (let at = 0; at < named.length; at += LEADER_CHECKS_IN_FLIGHT) {
      const chunk = named.slice(at, at + LEADER_CHECKS_IN_FLIGHT);
      const after = idx.lastSeq;
      const answers = await Promise.all(chunk.map((_, i) => this.nextStored(botId, (i === 0 ? after : chunk[i - 1]!) + 1)));
      for (let i = 0; i < chunk.length; i++) {
        const sm = answers[i];
        if (!sm) return false;
        this.record(botId, idx, sm.seq, sm.header, sm.data, fetched);
        if (sm.seq !== chunk[i]) return false;
      }
    }
    return true;
  }
}
