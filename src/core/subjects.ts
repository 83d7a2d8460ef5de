// Every event-bus subject, defined once. Subjects are dot-separated tokens; `*` matches one
// token, `>` the rest (NATS rules, also kept by the in-process bus). The JetStream update
// log's own stream subjects (`log.updates.<bot>`) are the NATS adapter's business and live
// in updates/jetstream.ts.

/** events.<owner>.<kind>: inbox live view, widget stream, push (DESIGN §2). */
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
