// ChannelCallbackActor: one per bot whose callback lease this worker holds. Delivers the bot's
// queued outgoing messages (callback_deliveries) to their channel's callback_url, signed,
// in message order within a conversation, several conversations at a time. The retry
// schedule lives in the table, so a restart or takeover continues where it stopped.
import { LanePump, type LaneQueue, type LaneRequest } from "./lanes.ts";
import { signature, SIGNATURE_HEADER, TIMESTAMP_HEADER } from "./signature.ts";
import type { DeliveryDeps } from "./webhook.ts";
import { findConversationById } from "../db/conversations.ts";
import { findMessagesByIds } from "../db/messages.ts";
import { toMessage } from "../db/view.ts";
import { UPDATE_RETENTION_MS } from "../updates/log.ts";
import { abandonCallback, finishCallback, listPendingCallbacks, retryCallbackLater, type PendingCallback } from "../db/webhooks.ts";
import type { Outcome } from "./http.ts";

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

export class ChannelCallbackActor extends LanePump<PendingCallback, DeliveryDeps> {
  protected readonly queue: LaneQueue<PendingCallback> = {
    pending: listPendingCallbacks, laneOf: (row) => row.conversation_id,
    maxConnections: CALLBACK_MAX_CONNECTIONS, batch: CALLBACK_BATCH, idleMs: CALLBACK_IDLE_MS, idleReason: "no callbacks queued",
  };

  protected async prepare(row: PendingCallback, now: number): Promise<LaneRequest | string> {
    if (!row.callback_url) return `the ${row.channel} channel has no callback_url any more`;
    if (row.created_at.getTime() <= now - CALLBACK_RETENTION_MS) return "not delivered within 24 h";
    const body = await this.body(row);
    if (!body) return "the message no longer exists";
    return { url: row.callback_url, body };
  }

  protected headers(row: PendingCallback, request: LaneRequest, timestamp: number): Record<string, string> {
    const headers: Record<string, string> = { [DELIVERY_HEADER]: row.message_id, [TIMESTAMP_HEADER]: String(timestamp) };
    if (row.secret) headers[SIGNATURE_HEADER] = signature(row.secret, timestamp, request.body);
    return headers;
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

  protected giveUp(row: PendingCallback, reason: string): Promise<void> {
    return abandonCallback(this.deps.db, row.message_id, reason);
  }

  /** Every attempt goes in the delivery log the cabinet shows. */
  protected override attempted(row: PendingCallback, request: LaneRequest, attemptedAt: Date, outcome: Outcome): void {
    this.deps.recorder.add({
      bot_id: this.botId, kind: "callback", update_id: null, message_id: row.message_id, url: request.url, status_code: outcome.status ?? null,
      latency_ms: outcome.latencyMs, error: outcome.error ?? null, attempted_at: attemptedAt.toISOString(),
    });
  }

  protected finished(row: PendingCallback, state: "delivered" | "failed", status: number | null, error: string | null): Promise<void> {
    return finishCallback(this.deps.db, row.message_id, state, status, error);
  }

  protected retryLater(row: PendingCallback, at: Date, status: number | null, error: string): Promise<void> {
    return retryCallbackLater(this.deps.db, row.message_id, at, status, error);
  }
}
