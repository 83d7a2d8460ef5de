// Event webhooks on the durable delivery path. EventHookIntake turns the bus's conversation
// events into queued rows (event_deliveries), one per hook that follows the kind; every
// worker offers every event and the (hook, event) key keeps one. EventHookActor, one per bot
// whose "event" lease this worker holds, sends them signed, in queue order within a hook's
// conversation, several conversations at a time, with the retry schedule in the table so a
// restart or takeover continues where it stopped.
import { createHash } from "node:crypto";
import { LanePump, type LaneQueue, type LaneDeps, type LaneRequest } from "./lanes.ts";
import type { Db } from "../db/driver.ts";
import type { Logger } from "../logger.ts";
import type { SecretBox } from "../secrets.ts";
import type { PlatformEvent } from "../core/events.ts";
import type { Contact } from "../core/records.ts";
import { EVENT_ID_HEADER, EVENT_SIGNATURE_HEADER, type EventWebhookEvent } from "../core/integrations.ts";
import { eventSignature } from "./signature.ts";
import {
  contactChanged, enqueueEventDelivery, finishEventDelivery, listEventWebhooks, listPendingEventDeliveries, retryEventDeliveryLater,
  type DbEventWebhook, type PendingEventDelivery,
} from "../db/event_webhooks.ts";
import { UPDATE_RETENTION_MS } from "../updates/log.ts";

/** Why: receivers are a company's own systems; a handful of conversations in flight per bot keeps them unflooded. */
export const EVENT_MAX_CONNECTIONS = 10;
/** Why: one read of the queue per pump; more than this waiting means the receiver is down anyway. */
export const EVENT_BATCH = 200;
/** Why: a bot with nothing queued gives its lease back after this, instead of renewing it forever. */
export const EVENT_IDLE_MS = 30_000;
/** Why: events are retried as long as webhook updates are kept (24 h), then marked failed (a redeliver sends them again). */
export const EVENT_RETENTION_MS = UPDATE_RETENTION_MS;

const sha = (text: string) => createHash("sha256").update(text).digest("hex");

/** The contact fields a receiver sees change. */
const contactFingerprint = (c: Contact) =>
  sha(JSON.stringify([c.external_user_id, c.first_name, c.last_name, c.name, c.email, c.phone]));

/** Private notes are the team's own: never sent out, whatever else changes. */
const isPrivate = (event: PlatformEvent) => (event.message as { private?: unknown } | undefined)?.private === true;

interface Queued {
  event: EventWebhookEvent;
  key: string;
  data: Record<string, unknown>;
}

function whatToQueue(event: PlatformEvent): Queued | undefined {
  const conversation = event.conversation;
  switch (event.kind) {
    case "conversation_created":
      return { event: "conversation_created", key: `conversation_created:${conversation.id}`, data: { conversation } };
    case "conversation_updated":
      // The same snapshot twice is one change, however many processes saw it.
      return { event: "conversation_updated", key: `conversation_updated:${conversation.id}:${sha(JSON.stringify(conversation))}`, data: { conversation } };
    case "message_created":
      if (!event.message) return undefined;
      return { event: "message_created", key: `message_created:${event.message.id}`, data: { conversation, message: event.message } };
    default:
      return undefined;
  }
}

const body = (q: Queued) => JSON.stringify({ event: q.event, id: `evt_${sha(q.key).slice(0, 32)}`, created_at: new Date().toISOString(), data: q.data });

export class EventHookIntake {
  /** One chain per bot: a bot's events are queued in the order they arrived. */
  private readonly chains = new Map<string, Promise<void>>();

  constructor(private readonly db: Db, private readonly logger: Logger) {}

  /** Queues the event for the bot's hooks; resolves with whether anything was queued. */
  offer(event: PlatformEvent): Promise<boolean> {
    if (isPrivate(event) || !whatToQueue(event)) return Promise.resolve(false);
    const before = this.chains.get(event.bot_id) ?? Promise.resolve();
    const run = before.then(() => this.queue(event)).catch((err) => {
      this.logger.warn({ err, bot: event.bot_id, kind: event.kind }, "queueing an event for event webhooks failed");
      return false;
    });
    const tail = run.then(() => undefined);
    this.chains.set(event.bot_id, tail);
    void tail.then(() => { if (this.chains.get(event.bot_id) === tail) this.chains.delete(event.bot_id); });
    return run;
  }

  private async queue(event: PlatformEvent): Promise<boolean> {
    const hooks = await listEventWebhooks(this.db, event.bot_id);
    if (hooks.length === 0) return false;
    const main = whatToQueue(event)!;
    let queued = false;
    for (const hook of hooks) {
      const contact = event.conversation.contact;
      if (contact && hook.events.includes("contact_updated")) {
        const changed = await contactChanged(this.db, hook.id, contact.id, contactFingerprint(contact));
        if (changed && event.kind !== "conversation_created") {
          const key = `contact_updated:${contact.id}:${contactFingerprint(contact)}`;
          queued = (await this.enqueue(hook, event, { event: "contact_updated", key, data: { contact, conversation_id: event.conversation.id } })) || queued;
        }
      }
      if (hook.events.includes(main.event)) queued = (await this.enqueue(hook, event, main)) || queued;
    }
    return queued;
  }

  private enqueue(hook: DbEventWebhook, event: PlatformEvent, q: Queued): Promise<boolean> {
    return enqueueEventDelivery(this.db, {
      hook_id: hook.id, bot_id: event.bot_id, event_key: q.key, event: q.event, order_key: event.conversation.id, body: body(q),
    });
  }
}

export interface EventHookDeps extends LaneDeps {
  db: Db;
  logger: Logger;
  secretBox: SecretBox;
}

export class EventHookActor extends LanePump<PendingEventDelivery, EventHookDeps> {
  protected readonly queue: LaneQueue<PendingEventDelivery> = {
    // A hook's events about one conversation go in order.
    pending: listPendingEventDeliveries, laneOf: (row) => `${row.hook_id} ${row.order_key}`,
    maxConnections: EVENT_MAX_CONNECTIONS, batch: EVENT_BATCH, idleMs: EVENT_IDLE_MS, idleReason: "no events queued",
  };

  protected async prepare(row: PendingEventDelivery, now: number): Promise<LaneRequest | string> {
    if (row.queued_at.getTime() <= now - EVENT_RETENTION_MS) return "not delivered within 24 h";
    return { url: row.url, body: row.body };
  }

  protected headers(row: PendingEventDelivery, request: LaneRequest, timestamp: number): Record<string, string> {
    return {
      [EVENT_SIGNATURE_HEADER]: eventSignature(this.deps.secretBox.open(row.secret_sealed), timestamp, request.body),
      [EVENT_ID_HEADER]: (JSON.parse(request.body) as { id: string }).id,
    };
  }

  protected giveUp(row: PendingEventDelivery, reason: string): Promise<void> {
    return finishEventDelivery(this.deps.db, row.id, "failed", null, reason, false);
  }

  protected finished(row: PendingEventDelivery, state: "delivered" | "failed", status: number | null, error: string | null): Promise<void> {
    return finishEventDelivery(this.deps.db, row.id, state, status, error, true);
  }

  protected retryLater(row: PendingEventDelivery, at: Date, status: number | null, error: string): Promise<void> {
    return retryEventDeliveryLater(this.deps.db, row.id, at, status, error);
  }
}
