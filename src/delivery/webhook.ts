// WebhookActor: one per bot whose delivery lease this worker holds. Reads the bot's update log
// from the first unconfirmed update, POSTs each Update to the webhook, keeps order within a
// chat while up to max_connections chats are in flight, and records its progress
// (delivery/progress.ts): the log is confirmed only over the contiguous prefix already
// delivered (updates are delivered out of order across chats, but confirm(below) forgets
// everything below, so it may never pass one still undelivered), and what was delivered
// beyond that prefix is written down, so the next holder of the lease skips it.
//
// HTTP requests run outside the mailbox; their outcomes come back as messages, so the
// actor's state is only ever touched one message at a time.
import { LeasedPump } from "./pump.ts";
import type { Db } from "../db/driver.ts";
import type { Logger } from "../logger.ts";
import { UPDATE_RETENTION_MS, type LogUpdate, type UpdateLog } from "../updates/log.ts";
import { messageOfUpdate } from "../core/updates.ts";
import { MAX_BODY_BYTES } from "../core/limits.ts";
import { findWebhook, recordWebhookError, removeGoneWebhook, type DbWebhook } from "../db/webhooks.ts";
import { backoffMs, postJson, type BackoffOptions, type Outcome, type ResponseBody } from "./http.ts";
import type { LeaseKeeper } from "./lease.ts";
import { DeliveryProgress } from "./progress.ts";
import type { AttemptRecorder } from "./recorder.ts";
import type { UrlPolicy } from "./ssrf.ts";

/**
 * Why: the least room worth a read. A read fills all the room there is: the first read of a
 * backlog gets every body with its scan (one JetStream consumer), and a later read would
 * fetch each body on its own (jetstream-index.ts).
 */
export const READ_BATCH = 100;
/** Why: bounds memory per bot, and how far one slow chat can let the others run ahead. */
export const MAX_BUFFERED_UPDATES = 1000;

export const SECRET_HEADERS = ["X-Bot-Api-Secret-Token", "X-Telegram-Bot-Api-Secret-Token"] as const;
/** Why: a webhook reply is a request to the facade, held to the facade's 64 KiB body limit. */
export const MAX_WEBHOOK_REPLY_BYTES = MAX_BODY_BYTES;

/** "telegram" webhooks (set through the facade): Telegram's shapes, and Telegram's webhook reply. */
export interface TelegramDelivery {
  /** The updates in Telegram's shape, in the same order, with one lookup for the whole batch. */
  shape(botId: string, updates: LogUpdate[]): Promise<unknown[]>;
  /** Executes the method a receiver's 2xx answer names, as the bot; an error sentence when it failed. */
  reply(botId: string, body: ResponseBody): Promise<string | undefined>;
}

export interface DeliveryDeps {
  db: Db;
  log: UpdateLog;
  policy: UrlPolicy;
  recorder: AttemptRecorder;
  logger: Logger;
  timeoutMs: number;
  backoff: BackoffOptions;
  now: () => number;
  /** Needed only for "telegram" webhooks; without it they are sent native updates. */
  telegram?: TelegramDelivery;
}

interface ChatQueue {
  /** Buffered update_ids of this chat, ascending; the head is next (or in flight). */
  ids: number[];
  inFlight: boolean;
  failures: number;
  notBefore: number;
}

type Webhook = DbWebhook & { url: string };

/** The chat an Update belongs to; order is kept per chat. */
export function chatOf(payload: Record<string, unknown>): string {
  const chat = messageOfUpdate(payload)?.chat;
  return chat?.id !== undefined ? String(chat.id) : "";
}

const kindOf = (payload: Record<string, unknown>) => Object.keys(payload).find((k) => k !== "update_id") ?? "";

export class WebhookActor extends LeasedPump<WebhookActor> {
  private webhook: Webhook | undefined;
  /** Read but not yet delivered, inserted in ascending update_id order (the first key is the least). */
  private readonly pending = new Map<number, LogUpdate>();
  private readonly chats = new Map<string, ChatQueue>();
  private readFrom = 0;
  private mayHaveMore = true;
  private inFlight = 0;
  private readonly progress: DeliveryProgress;

  constructor(
    private readonly deps: DeliveryDeps,
    readonly botId: string,
    lease: LeaseKeeper,
    tell: (work: (actor: WebhookActor) => Promise<void> | void) => void,
    /** Asks the worker to stop this actor (webhook gone). */
    private readonly finish: (reason: string) => void,
  ) {
    super(lease, tell);
    this.progress = new DeliveryProgress(deps, botId);
  }

  async onStart(): Promise<void> {
    // Together: one round trip instead of two per bot taken over. The first pump, which
    // needs both, is a later message of this mailbox.
    await Promise.all([this.progress.load(), this.reload(false)]);
  }

  /**
   * What was delivered is written down before the lease goes, so the next holder does not
   * repeat it; after a (simulated) crash nothing more is written, as after a kill -9.
   */
  override async onStop(): Promise<void> {
    await this.progress.close(!this.lease.halted);
    await super.onStop();
  }

  /** New settings (set-webhook); `dropped`: the log was emptied, so the buffer goes too. */
  async reload(dropped: boolean): Promise<void> {
    const row = await findWebhook(this.deps.db, this.botId);
    if (!row?.url) {
      this.webhook = undefined;
      this.finish("webhook removed");
      return;
    }
    this.webhook = row as Webhook;
    if (dropped) this.dropQueued();
    this.wake();
  }

  /** The log may have grown. */
  wake(): void {
    this.mayHaveMore = true;
    this.schedulePump();
  }

  protected async pump(): Promise<void> {
    const webhook = this.webhook;
    if (!webhook) return;
    await this.fill();
    const now = this.deps.now();
    let next = Infinity;
    const starting: Array<[string, ChatQueue]> = [];
    for (const [key, chat] of this.chats) {
      if (chat.inFlight) continue;
      if (chat.notBefore > now) next = Math.min(next, chat.notBefore);
      else if (this.inFlight < webhook.max_connections && !this.skipped(key, chat, webhook, now)) {
        // Counted in flight now, so the connection limit holds while the bodies are prepared.
        chat.inFlight = true;
        this.inFlight++;
        starting.push([key, chat]);
      }
    }
    if (starting.length > 0) await this.post(starting, webhook);
    this.pumpAt(next, now);
  }

  /** Past the log's retention, or of a kind the webhook does not want: done without a request. */
  private skipped(key: string, chat: ChatQueue, webhook: Webhook, now: number): boolean {
    const update = this.pending.get(chat.ids[0]!)!;
    const expired = update.date * 1000 <= now - UPDATE_RETENTION_MS;
    const unwanted = webhook.allowed_updates !== null && !webhook.allowed_updates.includes(kindOf(update.payload) as never);
    if (expired || unwanted) this.delivered(key, chat, update.update_id);
    return expired || unwanted;
  }

  /**
   * The bodies of one round's requests, as JSON: native payloads (the text the log stored, when
   * the read kept it), or Telegram's shapes converted in one batch.
   */
  private async bodies(updates: LogUpdate[], webhook: Webhook): Promise<string[]> {
    const telegram = this.deps.telegram;
    if (webhook.format !== "telegram" || !telegram) return updates.map((u) => u.json ?? JSON.stringify(u.payload));
    return (await telegram.shape(this.botId, updates)).map((body) => JSON.stringify(body));
  }

  /** Starts one request per chat (already counted in flight), each with the chat's head update. */
  private async post(starting: Array<[string, ChatQueue]>, webhook: Webhook): Promise<void> {
    const updates = starting.map(([, chat]) => this.pending.get(chat.ids[0]!)!);
    let bodies: string[];
    try {
      bodies = await this.bodies(updates, webhook);
    } catch (err) {
      // The lookups failed (database unavailable): these chats back off as after a failed request.
      this.deps.logger.warn({ err, bot: this.botId }, "preparing webhook bodies failed");
      for (const [, chat] of starting) {
        chat.inFlight = false;
        this.inFlight--;
        chat.failures++;
        chat.notBefore = this.deps.now() + backoffMs(chat.failures, this.deps.backoff);
      }
      this.schedulePump();
      return;
    }
    const headers: Record<string, string> = {};
    if (webhook.secret_token) for (const name of SECRET_HEADERS) headers[name] = webhook.secret_token;
    const telegram = webhook.format === "telegram" ? this.deps.telegram : undefined;
    starting.forEach(([key], i) => {
      const id = updates[i]!.update_id;
      const attemptedAt = new Date();
      void postJson(webhook.url, bodies[i]!, headers, {
        policy: this.deps.policy,
        timeoutMs: this.deps.timeoutMs,
        signal: this.lease.signal,
        keepBodyBytes: telegram ? MAX_WEBHOOK_REPLY_BYTES : undefined,
      })
        .then(async (outcome) => {
          // Executed before the chat's next update is sent, as Telegram does; its failure is
          // only recorded: the receiver had the update, and Telegram does not retry replies either.
          if (telegram && outcome.ok && outcome.body) outcome.bodyError ??= await telegram.reply(this.botId, outcome.body);
          return outcome;
        })
        .then((outcome) => this.self((actor) => actor.settle(key, id, webhook, attemptedAt, outcome)));
    });
  }

  /**
   * Reads the log into the buffer, a batch at a time, while there is room for a whole batch;
   * updates an earlier holder of the lease delivered are passed over as done.
   */
  private async fill(): Promise<void> {
    let passedOver = 0;
    while (this.mayHaveMore && MAX_BUFFERED_UPDATES - this.pending.size >= READ_BATCH) {
      const room = MAX_BUFFERED_UPDATES - this.pending.size;
      const batch = await this.deps.log.read(this.botId, this.readFrom, room);
      const done = await this.progress.deliveredEarlier(batch);
      for (const update of batch) {
        this.readFrom = update.update_id + 1;
        if (done.has(update.update_id)) {
          passedOver++;
          continue;
        }
        this.pending.set(update.update_id, update);
        const key = chatOf(update.payload);
        let chat = this.chats.get(key);
        if (!chat) this.chats.set(key, (chat = { ids: [], inFlight: false, failures: 0, notBefore: 0 }));
        chat.ids.push(update.update_id);
      }
      if (batch.length < room) this.mayHaveMore = false;
    }
    if (passedOver > 0) {
      this.deps.logger.debug({ bot: this.botId, updates: passedOver }, "skipped updates an earlier holder delivered");
      this.progress.delivered(undefined, this.lowestUndelivered());
    }
  }

  private async settle(key: string, id: number, webhook: Webhook, attemptedAt: Date, outcome: Outcome): Promise<void> {
    const chat = this.chats.get(key);
    if (chat?.ids[0] === id && chat.inFlight) {
      chat.inFlight = false;
      this.inFlight--;
    }
    // A lost lease: another worker may be delivering now; record nothing, change nothing.
    if (this.stopped || !this.lease.valid() || !chat || chat.ids[0] !== id) return;
    // To the back of the line: with fewer connections than chats, every chat gets its turn.
    this.chats.delete(key);
    this.chats.set(key, chat);
    this.deps.recorder.add({
      bot_id: this.botId, kind: "webhook", update_id: id, message_id: null, url: webhook.url, status_code: outcome.status ?? null,
      latency_ms: outcome.latencyMs, error: outcome.error ?? outcome.bodyError ?? null, attempted_at: attemptedAt.toISOString(),
    });
    if (outcome.bodyError) this.deps.logger.warn({ bot: this.botId, update: id, error: outcome.bodyError }, "webhook reply failed");
    if (outcome.ok) {
      this.delivered(key, chat, id);
    } else if (outcome.status === 410) {
      // The receiver says this webhook is gone for good: stop, and let the bot poll again.
      const message = `${outcome.error}; webhook removed, get-updates works again`;
      if (await removeGoneWebhook(this.deps.db, this.botId, webhook.url, attemptedAt, message)) {
        this.webhook = undefined;
        this.finish("receiver answered 410 Gone");
        return;
      }
    } else {
      chat.failures++;
      chat.notBefore = this.deps.now() + backoffMs(chat.failures, this.deps.backoff, outcome.retryAfterMs);
      await recordWebhookError(this.deps.db, this.botId, webhook.url, attemptedAt, outcome.error ?? "delivery failed");
    }
    this.schedulePump();
  }

  private delivered(key: string, chat: ChatQueue, id: number): void {
    chat.ids.shift();
    chat.failures = 0;
    chat.notBefore = 0;
    if (chat.ids.length === 0) this.chats.delete(key);
    this.pending.delete(id);
    this.progress.delivered(id, this.lowestUndelivered());
    this.schedulePump();
  }

  /** Everything below it was delivered (or passed over): the least buffered update, else the next to read. */
  private lowestUndelivered(): number {
    const lowest = this.pending.keys().next();
    return lowest.done ? this.readFrom : lowest.value;
  }

  /** drop_pending_updates: forget what is buffered and not already on its way. */
  private dropQueued(): void {
    for (const [key, chat] of this.chats) {
      const keep = chat.inFlight ? chat.ids.slice(0, 1) : [];
      for (const id of chat.ids.slice(keep.length)) this.pending.delete(id);
      if (keep.length === 0) this.chats.delete(key);
      else Object.assign(chat, { ids: keep, failures: 0, notBefore: 0 });
    }
  }
}
