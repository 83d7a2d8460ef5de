// The cabinet's live feed: every inbox event of the user's bots (the HTTP layer writes them
// as Server-Sent Events).
//
// Membership: events are published per bot owner (events.<owner>.<kind>), so the stream
// subscribes to the owners of every bot the user is a member of and forwards only events
// of those bots; it also follows users.<user>.events (this user's read markers, and
// `bots_changed` after a join, removal, rename or deletion, which makes it re-read the
// memberships before passing the notice on).
//
// Resume cursor: database time in milliseconds. Each event's `id:` is the latest change
// time the stream has delivered (conversation.updated_at, or a message's edited_at). On
// reconnect, conversations changed after (cursor − REPLAY_LOOKBACK_MS) are replayed — their
// new, edited and deleted messages, then a fresh conversation snapshot. The look-back
// covers a change whose timestamp (its transaction's start) is older than a change
// delivered before it; replayed events may repeat ones already seen, and clients apply
// them as idempotent upserts. A gap too old or too large ends in `reset`: reload.
import type { DbMessage } from "../db/messages.ts";
import { conversationsChangedSince, databaseNow, messagesChangedSince } from "../db/streams.ts";
import type { Db } from "../db/driver.ts";
import type { EventBus } from "../bus/bus.ts";
import type { Logger } from "../logger.ts";
import { badRequest } from "../core/errors.ts";
import type { ConversationEventKind, PlatformEvent } from "../core/events.ts";
import { ownerEventsSubject, userEventsSubject } from "../core/subjects.ts";
import type { UserEvent } from "../core/events.ts";
import { listMembershipOwners } from "../db/members.ts";
import { assigneesOf, withRelations } from "./inbox_view.ts";
import { toMessage } from "../db/view.ts";
import { openCabinet } from "./presence.ts";
import { OpenStreams, subscribeShared, type Feed, type FeedEvent, type FeedSink } from "./feed.ts";

/** Longer than any transaction plus bus delivery, so a late-committed change is replayed. */
export const REPLAY_LOOKBACK_MS = 60_000;
/** Past a day away the client is better served by reloading the inbox than by a replay. */
export const REPLAY_MAX_AGE_MS = 24 * 3600_000;
/** More changed conversations than this is a reload, not a replay. */
export const REPLAY_MAX_CONVERSATIONS = 500;
/** Messages replayed at most; beyond it the client reloads. */
export const REPLAY_MAX_MESSAGES = 2000;
/** A cursor is a millisecond timestamp: 13 digits until the year 2286. */
const MAX_CURSOR_LENGTH = 16;

/**
 * Why: bounds how long a removed member's stream may follow the bot, or a logged-out or
 * re-passworded token's stream may run, if the bus lost the notice (it ends them at once).
 */
export const MEMBERSHIP_RECHECK_MS = 60_000;

/** An operator has the cabinet open in a few tabs and devices; more is a leak or abuse. */
export const MAX_INBOX_STREAMS_PER_USER = 20;
const INBOX_STREAMS = new OpenStreams(MAX_INBOX_STREAMS_PER_USER, "user");

/** What the inbox feed yields: conversation events and the user's own notices, plus `ready` and `reset`. */
export type InboxFeedEvent =
  | FeedEvent<PlatformEvent["kind"], PlatformEvent>
  | FeedEvent<UserEvent["kind"], UserEvent>
  | FeedEvent<"ready", { cursor: string }>
  | FeedEvent<"reset", { reason: string }>
  | FeedEvent<"session_revoked", { reason: string }>;

/** What the inbox feed reads and follows. */
export type FeedDeps = { db: Db; bus: EventBus; logger: Logger; stopping: AbortSignal };

function parseTimeCursor(raw: string | null | undefined): number | undefined {
  if (raw === null || raw === undefined || raw.trim() === "") return undefined;
  const value = raw.trim();
  if (value.length > MAX_CURSOR_LENGTH || !/^\d+$/.test(value)) throw badRequest("Last-Event-ID must be an inbox stream event id");
  return Number(value);
}

/** The user's inbox feed, resuming after Last-Event-ID (or `since`); 429 past the per-user cap. */
export function inboxFeed(
  deps: FeedDeps, userId: string, since: number | undefined, lastEventId: string | null,
  /** Whether the token that opened the feed still holds (not logged out, password unchanged). */
  sessionHolds: () => Promise<boolean>,
): Feed<InboxFeedEvent> {
  const resumeFrom = parseTimeCursor(lastEventId) ?? since;
  const release = INBOX_STREAMS.reserve(userId);
  return {
    stopping: deps.stopping,
    start: (sink) => followInbox(deps, userId, resumeFrom, sink, sessionHolds),
    onError: (err) => deps.logger.warn({ err, user_id: userId }, "inbox stream failed"),
    onClose: release,
  };
}

/** The bus subscriptions of one stream: one per owner of the user's bots, kept in step with the memberships. */
class OwnerSubscriptions {
  private readonly byOwner = new Map<string, Promise<() => void>>();
  bots = new Set<string>();
  private closed = false;

  constructor(
    private readonly deps: FeedDeps,
    private readonly userId: string,
    private readonly onEvent: (event: PlatformEvent) => void,
  ) {}

  /** Re-reads the memberships; subscribes to new owners before leaving gone ones. True when the bots changed. */
  async refresh(): Promise<boolean> {
    const rows = await listMembershipOwners(this.deps.db, this.userId);
    const owners = new Set(rows.map((r) => r.owner_id));
    const joining: Promise<unknown>[] = [];
    for (const owner of owners) {
      if (this.byOwner.has(owner) || this.closed) continue;
      const subscribed = subscribeShared(
        this.deps.bus,
        ownerEventsSubject(owner),
        (data) => {
          const event = data as PlatformEvent;
          if (this.bots.has(event.bot_id)) this.onEvent(event);
        },
        (subject, err) => this.deps.logger.warn({ err, subject }, "inbox stream event handler failed"),
      );
      this.byOwner.set(owner, subscribed);
      joining.push(subscribed);
    }
    await Promise.all(joining);
    const before = this.bots;
    this.bots = new Set(rows.map((r) => r.bot_id));
    const changed = before.size !== this.bots.size || [...this.bots].some((bot) => !before.has(bot));
    for (const [owner, subscribed] of this.byOwner) {
      if (owners.has(owner)) continue;
      this.byOwner.delete(owner);
      void subscribed.then((leave) => leave(), () => undefined);
    }
    return changed;
  }

  close(): void {
    this.closed = true;
    for (const subscribed of this.byOwner.values()) void subscribed.then((leave) => leave(), () => undefined);
    this.byOwner.clear();
  }
}

const timeOf = (iso: string | null | undefined) => (iso ? Date.parse(iso) : 0);

async function followInbox(
  deps: FeedDeps, userId: string, resumeFrom: number | undefined, sink: FeedSink<InboxFeedEvent>, sessionHolds: () => Promise<boolean>,
): Promise<() => void> {
  let cursor = resumeFrom ?? 0;
  let live = false;
  const queued: (() => void)[] = [];
  const whenLive = (send: () => void) => {
    if (live) send();
    else queued.push(send);
  };

  const forward = (event: PlatformEvent) => {
    // Other kinds (typing) carry no conversation snapshot and leave the cursor alone.
    cursor = Math.max(cursor, timeOf(event.conversation?.updated_at), timeOf(event.message?.edited_at));
    sink.send({ event: event.kind, id: cursor, data: event });
  };
  const owners = new OwnerSubscriptions(deps, userId, (event) => whenLive(() => forward(event)));

  // Membership re-reads run one after another; a change is applied before its notice goes out.
  let refreshing: Promise<unknown> = Promise.resolve();
  const reread = (notice?: UserEvent) => {
    refreshing = refreshing
      .then(() => owners.refresh())
      .then((changed) => {
        const event = notice ?? (changed ? { kind: "bots_changed" as const, user_id: userId } : undefined);
        if (event) whenLive(() => sink.send({ event: event.kind, data: event }));
      })
      .catch((err) => {
        deps.logger.warn({ err, user_id: userId }, "inbox stream could not re-read memberships");
        sink.close();
      });
  };
  // A revoked token's stream says so and ends; a failed check ends it too (it cannot be vouched for).
  const recheckSession = () => {
    sessionHolds().then(
      (holds) => {
        if (holds) return;
        sink.send({ event: "session_revoked", data: { reason: "this token was logged out or its password changed; log in again" } });
        sink.close();
      },
      () => sink.close(),
    );
  };
  const onUserEvent = (data: unknown) => {
    const event = data as UserEvent;
    if (event.user_id !== userId) return;
    if (event.kind === "session_revoked") recheckSession();
    else if (event.kind === "bots_changed") reread(event);
    else whenLive(() => sink.send({ event: event.kind, data: event }));
  };

  // Subscribe first and hold live events until the replay is out, so none falls in between.
  const leaveUser = await subscribeShared(deps.bus, userEventsSubject(userId), onUserEvent, (subject, err) =>
    deps.logger.warn({ err, subject }, "inbox stream event handler failed"));
  // The bus is at most once: a lost bots_changed must not leave a removed member's stream
  // following the bot, so the memberships are also re-read now and then.
  const recheck = setInterval(() => {
    recheckSession();
    reread();
  }, MEMBERSHIP_RECHECK_MS);
  // An open cabinet makes its member online (presence.ts) until the stream ends.
  let closeCabinet: (() => void) | undefined;
  const unsubscribe = () => {
    closeCabinet?.();
    clearInterval(recheck);
    leaveUser();
    owners.close();
  };
  try {
    refreshing = owners.refresh();
    await refreshing;
    const now = (await databaseNow(deps.db)).getTime();
    if (resumeFrom !== undefined) {
      const replayed = now - resumeFrom <= REPLAY_MAX_AGE_MS && (await replay(deps, userId, resumeFrom, forward));
      if (!replayed) sink.send({ event: "reset", data: { reason: "the gap since Last-Event-ID is too large to replay; reload" } });
    }
    cursor = Math.max(cursor, now);
    sink.send({ event: "ready", id: cursor, data: { cursor: String(cursor) } });
    live = true;
    for (const send of queued.splice(0)) send();
    closeCabinet = openCabinet(deps, userId);
  } catch (err) {
    unsubscribe();
    throw err;
  }
  return unsubscribe;
}

/** Sends what changed after `since` (minus the look-back); false when it is too much. */
async function replay(deps: FeedDeps, userId: string, since: number, forward: (e: PlatformEvent) => void): Promise<boolean> {
  const { db } = deps;
  const from = new Date(since - REPLAY_LOOKBACK_MS);
  const conversations = await conversationsChangedSince(db, userId, from, REPLAY_MAX_CONVERSATIONS + 1);
  if (conversations.length > REPLAY_MAX_CONVERSATIONS) return false;
  const messages = await messagesChangedSince(db, conversations.map((c) => c.id), from, REPLAY_MAX_MESSAGES + 1);
  if (messages.length > REPLAY_MAX_MESSAGES) return false;

  const [views, assignees] = await Promise.all([withRelations(deps, conversations), assigneesOf(db, conversations.map((c) => c.id))]);
  const byConversation = new Map<string, DbMessage[]>();
  for (const m of messages) byConversation.set(m.conversation_id, [...(byConversation.get(m.conversation_id) ?? []), m]);

  for (const [i, row] of conversations.entries()) {
    // Replayed snapshots carry the assignee, as assignment events do.
    const conversation = { ...views[i]!, assignee: assignees.get(row.id) ?? null };
    const base = { owner_id: row.owner_id, bot_id: row.bot_id, conversation };
    for (const message of byConversation.get(row.id) ?? []) {
      forward({ ...base, kind: replayKind(message, from), message: toMessage(message, row) });
    }
    forward({ ...base, kind: "conversation_updated" });
  }
  return true;
}

function replayKind(message: DbMessage, from: Date): ConversationEventKind {
  if (message.deleted_at) return "message_deleted";
  return message.created_at > from ? "message_created" : "message_updated";
}
