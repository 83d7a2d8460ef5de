// The widget's live feed: new messages of one web/widget chat (the HTTP layer writes them as
// Server-Sent Events).
//
// Each message event's `id:` is the message's per-bot message_id. Ids are taken under the
// bot row's lock, so once message N is committed every lower id of that bot is committed
// too: "messages of this conversation with message_id > last id", read from the database,
// is exactly what a reconnecting client missed. The bus is only a wake-up: any new
// message of the chat triggers that same read, so a late or lost event cannot lose a
// message and out-of-order events cannot reorder them.
import { findConversationByChat, type DbConversation } from "../db/conversations.ts";
import type { DbBot } from "../db/bots.ts";
import { messagesAfter, latestMessageId } from "../db/streams.ts";
import { badRequest } from "../core/errors.ts";
import type { CallbackAnsweredEvent, OperatorTypingEvent, PlatformEvent, TypingEvent } from "../core/events.ts";
import { ownerEventKindsSubject } from "../core/subjects.ts";
import { hasPublicHistory, type ChannelType, type Message, type Status } from "../core/records.ts";
import { toMessage } from "../db/view.ts";
import { requireActiveChannel } from "./intake.ts";
import type { BotDirectory } from "./directory.ts";
import { OpenStreams, subscribeShared, type Feed, type FeedEvent, type FeedSink } from "./feed.ts";
import type { FeedDeps } from "./inbox_feed.ts";
import { visitorChat, type IdentityClaim, type IdentityDeps } from "./identity.ts";

/** Messages read per query while catching up; a long gap is sent in several pages. */
export const CATCH_UP_PAGE = 200;
/** One visitor has a tab or a few open; more from one address is someone holding sockets. */
export const MAX_WIDGET_STREAMS_PER_CLIENT = 50;
const WIDGET_STREAMS = new OpenStreams(MAX_WIDGET_STREAMS_PER_CLIENT, "client address");
/** Longest Last-Event-ID we parse: a bigint's digits. */
const MAX_CURSOR_LENGTH = 20;

export interface ChatFeedQuery extends IdentityClaim {
  chat_id: string;
  channel?: ChannelType;
  since?: number;
}

/** What a chat's feed yields: its messages and what happens to them, typing, and answers to button presses. */
export type ChatFeedEvent =
  | FeedEvent<"ready", { chat_id: string; message_id: string; status?: Status }>
  | FeedEvent<"status", { status: Status }>
  | FeedEvent<"message" | "message_updated", Message>
  | FeedEvent<"message_deleted", Pick<Message, "id" | "message_id" | "conversation_id">>
  | FeedEvent<"typing" | "operator_typing", Record<string, never>>
  | FeedEvent<"callback_answer", Pick<CallbackAnsweredEvent, "callback_query_id" | "text" | "show_alert" | "url">>;

/** Last-Event-ID as a message_id; absent → undefined; anything else is the client's bug (400). */
function parseMessageCursor(raw: string | null | undefined): number | undefined {
  if (raw === null || raw === undefined || raw.trim() === "") return undefined;
  const value = raw.trim();
  if (value.length > MAX_CURSOR_LENGTH || !/^\d+$/.test(value)) throw badRequest("Last-Event-ID must be a message_id");
  return Number(value);
}

export interface FeedClient {
  /** The client's address: the per-client cap counts open feeds by it. */
  ip: string;
  lastEventId: string | null;
}

/**
 * The chat's feed for a visitor; `bot` is the one the request names, already limited and
 * origin-checked. `capped` is false with RATE_LIMITS=off, like the other per-client limits
 * (tests share one "client").
 */
export async function chatFeed(
  deps: FeedDeps & IdentityDeps & { bots: BotDirectory }, bot: DbBot, query: ChatFeedQuery, client: FeedClient, capped: boolean,
): Promise<Feed<ChatFeedEvent>> {
  await visitorChat(deps, bot.id, query);
  const resumeFrom = parseMessageCursor(client.lastEventId) ?? query.since;
  // A switched-off channel's chats are not followed (403), as their history is not served.
  const existing = await findConversationByChat(deps.db, bot.id, query.chat_id);
  if (existing && hasPublicHistory(existing.channel)) await requireActiveChannel(deps, bot.id, existing.channel as ChannelType);
  const release = capped ? WIDGET_STREAMS.reserve(client.ip) : undefined;
  return {
    stopping: deps.stopping,
    start: (sink) => followChat(deps, bot, query, resumeFrom, sink),
    onError: (err) => deps.logger.warn({ err, bot_id: bot.id }, "widget stream failed"),
    onClose: release,
  };
}

const isTyping = (data: unknown): data is TypingEvent | OperatorTypingEvent => {
  const kind = (data as { kind?: unknown })?.kind;
  return kind === "typing" || kind === "operator_typing";
};
const isCallbackAnswer = (data: unknown): data is CallbackAnsweredEvent => (data as { kind?: unknown })?.kind === "callback_answered";

/** Same rule as the public history: only browser chats, and only the channel asked for. */
const visible = (conversation: Pick<DbConversation, "channel">, channel: string | undefined) =>
  hasPublicHistory(conversation.channel) && (!channel || channel === conversation.channel);

async function followChat(
  deps: FeedDeps, bot: DbBot, query: ChatFeedQuery, resumeFrom: number | undefined, sink: FeedSink<ChatFeedEvent>,
): Promise<() => void> {
  const { db } = deps;
  let conversation: DbConversation | undefined;
  let cursor = resumeFrom ?? 0;
  let pumping = false;
  let again = false;

  const catchUp = async () => {
    conversation ??= await findConversationByChat(db, bot.id, query.chat_id);
    if (!conversation || !visible(conversation, query.channel)) return;
    for (;;) {
      const rows = await messagesAfter(db, conversation.id, cursor, CATCH_UP_PAGE);
      for (const row of rows) {
        if (sink.closed) return;
        sink.send({ event: "message", id: row.message_id, data: toMessage(row, conversation) });
        cursor = row.message_id;
      }
      if (rows.length < CATCH_UP_PAGE) return;
    }
  };

  // One catch-up at a time; wake-ups during one make it run once more.
  const pump = () => {
    if (pumping) {
      again = true;
      return;
    }
    pumping = true;
    void (async () => {
      try {
        do {
          again = false;
          await catchUp();
        } while (again && !sink.closed);
      } catch (err) {
        deps.logger.warn({ err, bot_id: bot.id }, "widget stream catch-up failed");
        sink.close();
      } finally {
        pumping = false;
      }
    })();
  };

  const onEvent = (data: unknown) => {
    if (isTyping(data)) {
      // The bot's chat action is `typing`, an operator typing in the inbox `operator_typing`.
      if (data.bot_id === bot.id && data.chat_id === query.chat_id && visible(data, query.channel)) sink.send({ event: data.kind, data: {} });
      return;
    }
    if (isCallbackAnswer(data)) {
      if (data.bot_id === bot.id && data.chat_id === query.chat_id && visible(data, query.channel)) {
        const { callback_query_id, text, show_alert, url } = data;
        sink.send({ event: "callback_answer", data: { callback_query_id, text, show_alert, url } });
      }
      return;
    }
    const event = data as PlatformEvent;
    if (event.bot_id !== bot.id || event.conversation?.chat_id !== query.chat_id) return;
    // A status move (the widget asks for a rating once the conversation is closed).
    if (event.kind === "conversation_updated" && visible(event.conversation, query.channel)) {
      sink.send({ event: "status", data: { status: event.conversation.status } });
    }
    if (!event.message) return;
    if (event.kind === "message_created") {
      if (Number(event.message.message_id) > cursor) pump();
      return;
    }
    // Edits and deletions of messages already sent; newer ones arrive in their current state.
    if (Number(event.message.message_id) > cursor || !visible(event.conversation, query.channel)) return;
    if (event.kind === "message_updated") sink.send({ event: "message_updated", data: event.message });
    if (event.kind === "message_deleted") {
      const { id, message_id, conversation_id } = event.message;
      sink.send({ event: "message_deleted", data: { id, message_id, conversation_id } });
    }
  };

  // Subscribe before reading, so nothing committed in between goes unnoticed.
  const unsubscribe = await subscribeShared(deps.bus, ownerEventKindsSubject(bot.owner_id), onEvent, (subject, err) =>
    deps.logger.warn({ err, subject }, "widget stream event handler failed"));
  try {
    conversation = await findConversationByChat(db, bot.id, query.chat_id);
    if (resumeFrom === undefined && conversation) cursor = await latestMessageId(db, conversation.id);
  } catch (err) {
    unsubscribe();
    throw err;
  }
  // `ready` tells the client where the stream starts; its id is a valid resume point.
  const status = conversation && visible(conversation, query.channel) ? { status: conversation.status } : {};
  sink.send({ event: "ready", id: cursor, data: { chat_id: query.chat_id, message_id: String(cursor), ...status } });
  pump();
  return unsubscribe;
}
