// Every event-bus subject, defined once. Subjects are dot-separated tokens; `*` matches one
// token, `>` the rest (NATS rules, also kept by the in-process bus). The names on NATS
// (streams, buckets, the update log's `log.updates.<bot>`, the prefix) are natsNames below.

/** events.<owner>.<kind>: inbox live view, widget stream, push (docs/design.md §2). */
export const eventSubject = (event: { owner_id: string; kind: string }) => `events.${event.owner_id}.${event.kind}`;
/** Every event of one owner, whatever its kind. */
export const ownerEventsSubject = (ownerId: string) => `events.${ownerId}.>`;
/** Every event of one owner (kinds are one token, so this equals ownerEventsSubject in practice). */
export const ownerEventKindsSubject = (ownerId: string) => `events.${ownerId}.*`;
/** New messages of every owner: callbacks and push notifications. */
export const MESSAGE_CREATED_SUBJECTS = "events.*.message_created";

/**
 * users.<user>.events: what concerns one user only (their read markers, their memberships),
 * whoever owns the bot: the inbox stream of that user subscribes to it besides the owners'.
 */
export const userEventsSubject = (userId: string) => `users.${userId}.events`;

/** A bot's update log grew: wakes parked long polls and the webhook worker. */
export const wakeSubject = (botId: string) => `updates.${botId}`;
export const ALL_WAKE_SUBJECTS = "updates.*";
/** Why: a wake-up must stay far below NATS's 1 MB message limit (100 texts of 4,096 characters fit); bigger batches wake with the id only. */
export const WAKE_MAX_CARRIED = 100;
/** What a wake-up carries, published once the updates are durable in the log. */
export interface Wake {
  /** The highest update_id just made durable. */
  update_id: number;
  /** The updates themselves (as the log returns them), ascending, when at most WAKE_MAX_CARRIED. */
  updates?: { update_id: number; payload: Record<string, unknown>; date: number }[];
}

/** A newer long poll for the bot started somewhere: the older one ends with 409. */
export const pollSubject = (botId: string) => `polls.${botId}`;

/** A bot's webhook was set or deleted: every webhook worker looks again. */
export const webhookChangedSubject = (botId: string) => `webhooks.${botId}`;
export const ALL_WEBHOOK_SUBJECTS = "webhooks.*";
export interface WebhookChanged {
  dropped?: boolean;
}

/** A bot or its channels changed: every process forgets what it kept of it (domain/directory.ts). */
export const botChangedSubject = (botId: string) => `bots.${botId}`;
export const ALL_BOT_CHANGES = "bots.*";

/** The bot id of a `<prefix>.<bot>` subject (wake-ups, webhook changes). */
export const botOfSubject = (subject: string) => subject.split(".")[1]!;

/**
 * Every name this deployment uses on NATS: streams, KV buckets and the wire form of the bus
 * subjects above. NATS_PREFIX puts all of them in the deployment's own space, so several
 * deployments can share one NATS server; without a prefix they are the plain names.
 */
export interface NatsNames {
  /** JetStream stream of every bot's update log. */
  updatesStream: string;
  /** The update log's subject for one bot (`log.updates.<bot>`, apart from the bus's `updates.<bot>`). */
  updatesSubject(botId: string): string;
  /** KV bucket of each bot's confirmed watermark. */
  confirmedBucket: string;
  /** JetStream stream that keeps incoming-message events for the push worker. */
  eventsStream: string;
  /** KV bucket of single-owner leases (webhook delivery). */
  leasesBucket: string;
  /** KV bucket of shared rate-limit counters. */
  rateLimitBucket: string;
  /** Object Store bucket of uploaded files' bytes. */
  filesBucket: string;
  /** A bus subject (or pattern) as sent to NATS. */
  wire(subject: string): string;
  /** The bus subject of a subject received from NATS. */
  unwire(subject: string): string;
}

export function natsNames(prefix = ""): NatsNames {
  const name = (base: string) => (prefix ? `${prefix}_${base}` : base);
  const wire = (subject: string) => (prefix ? `${prefix}.${subject}` : subject);
  return {
    updatesStream: name("UPDATES"),
    updatesSubject: (botId) => wire(`log.updates.${botId}`),
    confirmedBucket: name("UPDATES_CONFIRMED"),
    eventsStream: name("EVENTS"),
    leasesBucket: name("LEASES"),
    rateLimitBucket: name("RATELIMITS"),
    filesBucket: name("FILES"),
    wire,
    unwire: (subject) => (prefix && subject.startsWith(`${prefix}.`) ? subject.slice(prefix.length + 1) : subject),
  };
}

/** The names of a deployment without NATS_PREFIX. */
export const DEFAULT_NATS_NAMES = natsNames();

/** A bot's event webhooks or their queue changed (created, deleted, a redeliver): delivery workers look again. */
export const eventHooksChangedSubject = (botId: string) => `eventhooks.${botId}`;
export const ALL_EVENT_HOOK_SUBJECTS = "eventhooks.*";
/** Every conversation event of every owner: event webhooks follow them all. */
export const ALL_CONVERSATION_EVENTS = "events.*.*";
