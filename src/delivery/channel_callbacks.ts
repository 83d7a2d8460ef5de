// ChannelCallbackActor: one per bot whose callback lease this worker holds. Delivers the bot's
// queued outgoing messages (callback_deliveries) to their channel's callback_url, signed,
// in message order within a conversation, several conversations at a time. The retry
// schedule lives in the table, so a restart or takeover continues where it stopped.
import { LeasedPump } from "./pump.ts";
import { signature, SIGNATURE_HEADER, TIMESTAMP_HEADER } from "./signature.ts";
import type { DeliveryDeps } from "./webhook.ts";
import { findConversationById } from "../db/conversations.ts";
import { findMessagesByIds } from "../db/messages.ts";
import { toMessage } from "../db/view.ts";
import { UPDATE_RETENTION_MS } from "../updates/log.ts";
import { abandonCallback, finishCallback, listPendingCallbacks, retryCallbackLater, type PendingCallback } from "../db/webhooks.ts";
import { backoffMs, postJson, type Outcome } from "./http.ts";
import type { LeaseKeeper } from "./lease.ts";

/** Why: conversations delivered in parallel per bot; callbacks are replies, a handful at once is plenty. */
export const CALLBACK_MAX_CONNECTIONS = 10;
/** Why: one read of the queue per pump; more than this waiting means the receiver is down anyway. */
export const CALLBACK_BATCH = 200;
/** Why: a bot with nothing queued gives its lease back after this, instead of renewing it forever. */
export const CALLBACK_IDLE_MS = 30_000;
/** Why: callbacks are retried as long as webhook updates are kept (24 h), then marked failed. */
export const CALLBACK_RETENTION_MS = UPDATE_RETENTION_MS;

export { signature, SIGNATURE_HEADER, TIMESTAMP_HEADER } from "./signature.ts";
export const DELIVERY_HEADER = "X-Delivery-Id";

export class ChannelCallbackActor extends LeasedPump<ChannelCallbackActor> {
  /** Conversations with a request on its way. */
  private readonly busy = new Set<string>();
  private idleTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly deps: DeliveryDeps,
    readonly botId: string,
    lease: LeaseKeeper,
    tell: (work: (actor: ChannelCallbackActor) => Promise<void> | void) => void,
    /** Asks the worker to stop this actor (idle). */
    private readonly finish: (reason: string) => void,
  ) {
    super(lease, tell);
  }

  onStart(): void {
    this.wake();
  }

  override async onStop(): Promise<void> {
    clearTimeout(this.idleTimer);
    await super.onStop();
  }

  wake(): void {
    this.schedulePump();
  }

  protected async pump(): Promise<void> {
    const rows = await listPendingCallbacks(this.deps.db, this.botId, CALLBACK_BATCH);
    const now = this.deps.now();
    const heads = new Map<string, PendingCallback>();
    for (const row of rows) if (!heads.has(row.conversation_id)) heads.set(row.conversation_id, row);
    let next = Infinity;
    for (const [conversationId, row] of heads) {
      if (this.busy.has(conversationId)) continue;
      const due = row.next_attempt_at.getTime();
      if (due > now) next = Math.min(next, due);
      else if (this.busy.size < CALLBACK_MAX_CONNECTIONS) await this.start(row, now);
    }
    this.pumpAt(next, now);
    clearTimeout(this.idleTimer);
    if (rows.length === 0 && this.busy.size === 0) {
      this.idleTimer = setTimeout(() => this.self((actor) => actor.retireIfIdle()), CALLBACK_IDLE_MS);
    }
  }

  private async retireIfIdle(): Promise<void> {
    if (this.busy.size > 0 || (await listPendingCallbacks(this.deps.db, this.botId, 1)).length > 0) return this.wake();
    this.finish("no callbacks queued");
  }

  private async start(row: PendingCallback, now: number): Promise<void> {
    if (!row.callback_url) {
      await abandonCallback(this.deps.db, row.message_id, `the ${row.channel} channel has no callback_url any more`);
      return this.schedulePump();
    }
    if (row.created_at.getTime() <= now - CALLBACK_RETENTION_MS) {
      await abandonCallback(this.deps.db, row.message_id, "not delivered within 24 h");
      return this.schedulePump();
    }
    const body = await this.body(row);
    if (!body) {
      await abandonCallback(this.deps.db, row.message_id, "the message no longer exists");
      return this.schedulePump();
    }
    this.busy.add(row.conversation_id);
    const timestamp = Math.floor(now / 1000);
    const headers: Record<string, string> = { [DELIVERY_HEADER]: row.message_id, [TIMESTAMP_HEADER]: String(timestamp) };
    if (row.secret) headers[SIGNATURE_HEADER] = signature(row.secret, timestamp, body);
    const url = row.callback_url;
    const attemptedAt = new Date();
    void postJson(url, body, headers, { policy: this.deps.policy, timeoutMs: this.deps.timeoutMs, signal: this.lease.signal })
      .then((outcome) => this.self((actor) => actor.settle(row, url, attemptedAt, outcome)));
  }

  private async body(row: PendingCallback): Promise<string | undefined> {
    const [message] = await findMessagesByIds(this.deps.db, [row.message_id]);
    const conversation = await findConversationById(this.deps.db, row.conversation_id);
    if (!message || !conversation) return undefined;
    return JSON.stringify({
      event: "message_created",
      bot_id: this.botId,
      conversation: { id: conversation.id, number: conversation.number, chat_id: conversation.chat_id, channel: conversation.channel },
      message: toMessage(message, conversation),
    });
  }

  private async settle(row: PendingCallback, url: string, attemptedAt: Date, outcome: Outcome): Promise<void> {
    this.busy.delete(row.conversation_id);
    // A lost lease: another worker may be delivering now; record nothing, change nothing.
    if (this.stopped || !this.lease.valid()) return;
    this.deps.recorder.add({
      bot_id: this.botId, kind: "callback", update_id: null, message_id: row.message_id, url, status_code: outcome.status ?? null,
      latency_ms: outcome.latencyMs, error: outcome.error ?? null, attempted_at: attemptedAt.toISOString(),
    });
    const status = outcome.status ?? null;
    if (outcome.ok) {
      await finishCallback(this.deps.db, row.message_id, "delivered", status, null);
    } else if (status === 410) {
      // The receiver refuses this message for good; the channel's config is the owner's to change.
      await finishCallback(this.deps.db, row.message_id, "failed", status, outcome.error ?? "gone");
    } else {
      const wait = backoffMs(row.attempts + 1, this.deps.backoff, outcome.retryAfterMs);
      await retryCallbackLater(this.deps.db, row.message_id, new Date(this.deps.now() + wait), status, outcome.error ?? "delivery failed");
    }
    this.schedulePump();
  }
}
