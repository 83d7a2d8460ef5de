// Chaos harness, traffic: senders that behave like real clients (retry the same
// client_message_id until acknowledged), a get-updates reader, a flaky webhook receiver, and
// the checker that turns what they saw into a verdict with details.
import { onCleanup } from "./process.ts";

export interface Attempt {
  url: string;
  /** HTTP status, or 0 when no answer came (refused, reset, timeout). */
  status: number;
  error?: string;
  ms: number;
  at: number;
}

export interface Bot {
  id: string;
  token: string;
}

async function call(base: string, method: string, path: string, body?: unknown, token?: string, timeoutMs = 10_000) {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers["content-type"] = "application/json";
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await fetch(base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(timeoutMs) });
  const text = await res.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: res.status, body: json };
}

/** A user and a bot made through the HTTP API, as a bot owner would. */
export async function createBot(base: string): Promise<Bot> {
  const email = `chaos-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const user = await call(base, "POST", "/api/auth/register", { email, password: "chaos-password-1" });
  if (user.status !== 200) throw new Error(`register: ${user.status} ${JSON.stringify(user.body)}`);
  const bot = await call(base, "POST", "/api/bots", { name: "Chaos bot" }, user.body.result.token);
  if (bot.status !== 201) throw new Error(`create bot: ${bot.status} ${JSON.stringify(bot.body)}`);
  return { id: bot.body.result.id, token: bot.body.result.token };
}

export async function setWebhook(base: string, bot: Bot, url: string, maxConnections: number): Promise<void> {
  const res = await call(base, "POST", `/api/bots/${bot.id}/set-webhook`, { url, max_connections: maxConnections }, bot.token);
  if (res.status !== 200) throw new Error(`set-webhook: ${res.status} ${JSON.stringify(res.body)}`);
}

/** get-webhook-info, for the failure report (pending_update_count, last error). */
export async function webhookInfo(base: string, bot: Bot): Promise<string> {
  try {
    const res = await call(base, "GET", `/api/bots/${bot.id}/get-webhook-info`, undefined, bot.token, 5000);
    return JSON.stringify(res.body?.result ?? res.body);
  } catch (err) {
    return `get-webhook-info failed: ${(err as Error).message}`;
  }
}

// --- message identity ----------------------------------------------------------------------

const keyOf = (run: string, chat: number, seq: number) => `${run}:${chat}:${seq}`;

export interface Identity {
  key: string;
  chat: number;
  seq: number;
}

/** The (chat, seq) a delivered Update carries, from the client_message_id the sender set. */
export function identify(update: any): Identity | undefined {
  const id = update?.message?.metadata?.client_message_id;
  const match = typeof id === "string" ? /^(.+):(\d+):(\d+)$/.exec(id) : null;
  if (!match) return undefined;
  return { key: id, chat: Number(match[2]), seq: Number(match[3]) };
}

// --- senders -------------------------------------------------------------------------------

export interface LoadOptions {
  urls: () => string[];
  bot: Bot;
  senders: number;
  chatsPerSender: number;
  messages: number;
  /** Between a sender's messages: spreads the load over the chaos instead of finishing before it. */
  pauseMs: number;
  retryPauseMs?: number;
  requestTimeoutMs?: number;
  /** Senders give up here; whatever was not acknowledged by then is reported, not hidden. */
  deadlineMs: number;
  /** Sent as `channel`; "web" makes the chat's history readable through GET /api/messages. */
  channel?: string;
  /** Stops retrying early when waiting is pointless (the only web process crashed). */
  giveUpIf?: () => boolean;
}

/**
 * `senders` concurrent clients, each owning `chatsPerSender` chats, round-robin over its chats
 * and one request at a time, so within a chat messages are sent strictly one after another.
 * Requests alternate between the URLs; a failure moves to the next URL and repeats the same
 * message (same client_message_id) until it is acknowledged.
 */
export class Load {
  readonly run = Math.random().toString(36).slice(2, 8);
  readonly acked = new Map<string, { chat: number; seq: number; at: number }>();
  readonly attempts: Attempt[] = [];
  readonly planned: number;
  readonly perChat: number;
  readonly chats: number;
  startedAt = 0;
  finishedAt = 0;
  private stopped = false;

  constructor(readonly options: LoadOptions) {
    this.chats = options.senders * options.chatsPerSender;
    this.perChat = Math.ceil(options.messages / this.chats);
    this.planned = this.perChat * this.chats;
    // A scenario that failed half-way must not leave senders running into the next file.
    onCleanup(() => this.stop());
  }

  async start(): Promise<void> {
    this.startedAt = Date.now();
    const deadline = this.startedAt + this.options.deadlineMs;
    await Promise.all(Array.from({ length: this.options.senders }, (_, i) => this.sender(i, deadline)));
    this.finishedAt = Date.now();
  }

  stop(): void {
    this.stopped = true;
  }

  private async sender(index: number, deadline: number): Promise<void> {
    const { chatsPerSender, pauseMs } = this.options;
    let turn = index;
    // Staggered, so 48 senders do not fire in lockstep.
    await Bun.sleep(Math.random() * pauseMs);
    for (let seq = 0; seq < this.perChat; seq++) {
      for (let c = 0; c < chatsPerSender; c++) {
        const chat = index * chatsPerSender + c;
        while (!(await this.send(chat, seq, turn++))) {
          if (this.stopped || Date.now() > deadline || this.options.giveUpIf?.()) return;
          await Bun.sleep((this.options.retryPauseMs ?? 200) * (0.5 + Math.random()));
        }
        if (pauseMs > 0) await Bun.sleep(pauseMs * (0.5 + Math.random()));
      }
    }
  }

  private async send(chat: number, seq: number, turn: number): Promise<boolean> {
    const urls = this.options.urls();
    const url = urls[turn % urls.length]!;
    const key = keyOf(this.run, chat, seq);
    const at = Date.now();
    const body = {
      bot_id: this.options.bot.id,
      chat_id: `chaos-${this.run}-${chat}`,
      text: `chat ${chat} seq ${seq}`,
      metadata: { client_message_id: key },
      ...(this.options.channel ? { channel: this.options.channel } : {}),
    };
    try {
      const res = await call(url, "POST", "/api/messages", body, undefined, this.options.requestTimeoutMs ?? 5000);
      const attempt: Attempt = { url, status: res.status, ms: Date.now() - at, at };
      const ok = (res.status === 200 || res.status === 201) && res.body?.ok === true;
      if (!ok) attempt.error = JSON.stringify(res.body).slice(0, 300);
      this.attempts.push(attempt);
      if (ok && !this.acked.has(key)) this.acked.set(key, { chat, seq, at: Date.now() });
      return ok;
    } catch (err) {
      const e = err as Error;
      this.attempts.push({ url, status: 0, error: e.name === "TimeoutError" ? "timeout" : `${e.name}: ${e.message}`.slice(0, 200), ms: Date.now() - at, at });
      return false;
    }
  }
}

// --- get-updates reader --------------------------------------------------------------------

export interface Delivery extends Identity {
  update_id: number;
  at: number;
  /** The get-updates answer that carried it (get-updates only): where a passed-over gap came from. */
  poll?: { url: string; offset: number; sentAt: number };
}

/**
 * A bot backend draining get-updates: long polls, confirming with offset = last update_id + 1,
 * moving to the next URL and retrying on any error. Keeps every update it was handed.
 */
export class Reader {
  readonly deliveries: Delivery[] = [];
  readonly attempts: Attempt[] = [];
  /** Updates with an update_id below an offset already sent: the server handed back something confirmed. */
  readonly belowOffset: Array<{ update_id: number; offset: number }> = [];
  private offset = 0;
  private running = true;
  private done: Promise<void> | undefined;

  constructor(private readonly urls: () => string[], private readonly bot: Bot, private readonly pollSeconds = 2) {}

  start(): this {
    onCleanup(() => void (this.running = false));
    this.done = this.loop();
    return this;
  }

  private async loop(): Promise<void> {
    let turn = 0;
    while (this.running) {
      const urls = this.urls();
      const url = urls[turn % urls.length]!;
      const at = Date.now();
      try {
        const path = `/api/bots/${this.bot.id}/get-updates?offset=${this.offset}&timeout=${this.pollSeconds}&limit=100`;
        const res = await call(url, "GET", path, undefined, this.bot.token, this.pollSeconds * 1000 + 10_000);
        this.attempts.push({ url, status: res.status, ms: Date.now() - at, at, error: res.status === 200 ? undefined : JSON.stringify(res.body).slice(0, 300) });
        if (res.status !== 200) throw new Error(String(res.status));
        for (const update of res.body.result as any[]) {
          if (update.update_id < this.offset) this.belowOffset.push({ update_id: update.update_id, offset: this.offset });
          const id = identify(update);
          if (id) this.deliveries.push({ ...id, update_id: update.update_id, at: Date.now(), poll: { url, offset: this.offset, sentAt: at } });
          this.offset = Math.max(this.offset, update.update_id + 1);
        }
      } catch (err) {
        const e = err as Error;
        if (!/^\d+$/.test(e.message)) this.attempts.push({ url, status: 0, error: e.name === "TimeoutError" ? "timeout" : e.message.slice(0, 200), ms: Date.now() - at, at });
        turn++;
        await Bun.sleep(200);
      }
    }
  }

  has(key: string): boolean {
    return this.deliveries.some((d) => d.key === key);
  }

  /** Keeps reading until every acknowledged message arrived or the deadline passes. */
  async drain(load: Load, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const seen = new Set(this.deliveries.map((d) => d.key));
      if ([...load.acked.keys()].every((k) => seen.has(k))) break;
      await Bun.sleep(250);
    }
    // One more poll's worth, so a duplicate arriving just after the last message is seen too.
    await Bun.sleep(this.pollSeconds * 1000 + 500);
    await this.stop();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.done;
  }
}

// --- the verdict ---------------------------------------------------------------------------

export interface Verdict {
  problems: string[];
  summary: string;
  lost: string[];
  duplicateUpdates: number;
  duplicateMessages: number;
  outOfOrder: number;
  repeats: number;
}

const sample = <T>(items: T[], n = 15) => items.slice(0, n).map((x) => (typeof x === "string" ? x : JSON.stringify(x))).join(", ") + (items.length > n ? `, … (${items.length} in all)` : "");

/**
 * What the senders and the receiving side saw, checked against the promise: every acknowledged
 * message delivered, none delivered twice (by update_id, or as two updates for one message),
 * per-chat order, no 500s, every planned message acknowledged (recovery without help).
 * `repeatsAllowed`: webhook delivery is at least once, so repeats are counted, not forbidden.
 */
export function verdict(load: Load, deliveries: Delivery[], extraAttempts: Attempt[] = [], repeatsAllowed = false): Verdict {
  const problems: string[] = [];
  const seenUpdates = new Map<number, number>();
  const updateOf = new Map<string, Set<number>>();
  const lastSeq = new Map<number, number>();
  const outOfOrder: string[] = [];
  let repeats = 0;
  for (const d of deliveries) {
    const n = (seenUpdates.get(d.update_id) ?? 0) + 1;
    seenUpdates.set(d.update_id, n);
    if (n > 1) {
      repeats++;
      continue;
    }
    const ids = updateOf.get(d.key) ?? new Set<number>();
    ids.add(d.update_id);
    updateOf.set(d.key, ids);
    const last = lastSeq.get(d.chat) ?? -1;
    if (d.seq < last) outOfOrder.push(`chat ${d.chat}: seq ${d.seq} (update ${d.update_id}) after seq ${last}`);
    lastSeq.set(d.chat, Math.max(last, d.seq));
  }
  const lost = [...load.acked.keys()].filter((k) => !updateOf.has(k)).sort();
  const duplicateMessages = [...updateOf].filter(([, ids]) => ids.size > 1).map(([k, ids]) => `${k} as updates ${[...ids].join("/")}`);
  const repeated = [...seenUpdates].filter(([, n]) => n > 1).map(([id, n]) => `update ${id} × ${n}`);

  const attempts = [...load.attempts, ...extraAttempts];
  const statuses = (list: Attempt[]) => {
    const counts: Record<string, number> = {};
    for (const a of list) {
      const label = a.status === 0 ? (a.error === "timeout" ? "timeout" : "no answer") : String(a.status);
      counts[label] = (counts[label] ?? 0) + 1;
    }
    return JSON.stringify(counts);
  };
  const serverErrors = attempts.filter((a) => a.status >= 500 && a.status !== 503);
  const odd = attempts.filter((a) => a.status > 0 && a.status < 500 && ![200, 201, 429].includes(a.status));
  const unacked = load.planned - load.acked.size;

  if (lost.length) problems.push(`${lost.length} acknowledged message(s) never delivered: ${sample(lost)}`);
  if (lost.length) problems.push(...passedOver(deliveries));
  if (repeated.length && !repeatsAllowed) problems.push(`${repeats} update(s) delivered twice: ${sample(repeated)}`);
  if (duplicateMessages.length) problems.push(`${duplicateMessages.length} message(s) delivered as more than one update: ${sample(duplicateMessages)}`);
  if (outOfOrder.length) problems.push(`${outOfOrder.length} out-of-order deliveries: ${sample(outOfOrder)}`);
  if (serverErrors.length) problems.push(`${serverErrors.length} × 5xx other than 503: ${sample(serverErrors.map((a) => `${a.status} ${a.url} ${a.error ?? ""}`), 5)}`);
  if (odd.length) problems.push(`${odd.length} unexpected 4xx: ${sample(odd.map((a) => `${a.status} ${a.error ?? ""}`), 5)}`);
  if (unacked) problems.push(`${unacked} of ${load.planned} messages never acknowledged before the senders' deadline (no recovery?)`);

  const maxMs = Math.max(0, ...load.attempts.map((a) => a.ms));
  const summary = [
    `run ${load.run}: ${load.planned} planned, ${load.acked.size} acked in ${((load.finishedAt - load.startedAt) / 1000).toFixed(1)} s`,
    `${deliveries.length} deliveries, ${lost.length} lost, ${repeats} repeated update_ids, ${duplicateMessages.length} duplicated messages, ${outOfOrder.length} out of order`,
    `sends: ${statuses(load.attempts)}, slowest ${maxMs} ms; other requests (reads): ${statuses(extraAttempts)}`,
  ].join("\n");
  return { problems, summary, lost, duplicateUpdates: repeats, duplicateMessages: duplicateMessages.length, outOfOrder: outOfOrder.length, repeats };
}

/**
 * Get-updates answers that began after a gap in the update ids handed out so far: which ids were
 * passed over, by which process, to which offset, when (milliseconds since the epoch).
 */
function passedOver(deliveries: Delivery[]): string[] {
  const out: string[] = [];
  let expected = 0;
  for (const d of deliveries) {
    if (!d.poll) continue;
    if (expected > 0 && d.update_id > expected) {
      out.push(`update ids ${expected}–${d.update_id - 1} passed over by ${d.poll.url}'s answer to offset ${d.poll.offset} (sent at ${d.poll.sentAt}, received at ${d.at})`);
    }
    expected = Math.max(expected, d.update_id + 1);
  }
  return out;
}

/** Fails with everything needed to start reading: the problems, the numbers, the logs. */
export function assertClean(problems: string[], summary: string, logs: string[]): void {
  console.log(summary);
  if (problems.length === 0) return;
  throw new Error(`${problems.length} problem(s):\n- ${problems.join("\n- ")}\n${summary}\nlogs: ${[...new Set(logs)].join(" ")}`);
}
