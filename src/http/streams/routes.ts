import { t } from "elysia";
import type { Platform } from "../../platform.ts";
import { userAuth } from "../auth/plugin.ts";
import { clientIp } from "../client.ts";
import { ErrorResponse } from "../envelope.ts";
import { feature } from "../feature.ts";
import { InboxStreamQuery, openInboxStream } from "./inbox.ts";
import { openWidgetStream, WidgetStreamQuery } from "./widget.ts";
import { publicAccess } from "../public.ts";

export const STREAMS_TAG = "Live streams";

const LastEventId = t.Optional(t.String({ maxLength: 64, description: "The last event id received: the stream resumes after it" }));
/**
 * The TypeBox normaliser keeps only the headers a schema names, so the inbox stream's also
 * names Authorization (which the user-token check reads).
 */
const ResumeHeaders = t.Object({ "last-event-id": LastEventId });
const AuthorizedResumeHeaders = t.Object({
  "last-event-id": LastEventId,
  authorization: t.Optional(t.String({ description: "Bearer <user token>" })),
});

/**
 * OpenAPI for an event stream: the 200 body is text/event-stream, not the JSON envelope, so
 * the responses are described here rather than generated from a `response` schema.
 */
const eventStream = (description: string, statuses: number[]) => ({
  200: { description, content: { "text/event-stream": { schema: { type: "string" as const } } } },
  ...Object.fromEntries(statuses.map((s) => [s, { description: `Error ${s}`, content: { "application/json": { schema: ErrorResponse } } }])),
});

export const streamRoutes = (platform: Platform) =>
  feature({ tags: [STREAMS_TAG] })
    .use(userAuth(platform))
    .use(publicAccess(platform))
    .get(
      "/api/messages/stream",
      ({ publicBot, query, request }) =>
        openWidgetStream(platform, publicBot, query, {
          ip: clientIp(request),
          origin: request.headers.get("origin"),
          lastEventId: request.headers.get("last-event-id"),
          signal: request.signal,
        }),
      {
        publicBot: { from: "query", limit: true, origin: true },
        query: WidgetStreamQuery,
        headers: ResumeHeaders,
        detail: {
          summary: "Live messages of a web or widget chat (Server-Sent Events)",
          description:
            "Events: `ready` (id = where the stream starts), `message` (id = the message's message_id; data = Message), " +
            "`message_updated`, `message_deleted`, `typing` (the bot's chat action), `operator_typing` (an operator is typing in the inbox) and `callback_answer` " +
            "(`{callback_query_id, text, show_alert, url}`: the bot's answerCallbackQuery to a press from POST /api/messages/callback-query) without an id. Resume with the Last-Event-ID header or `since`: every message " +
            "of the chat with a higher message_id is sent first. Heartbeat comments every 15 s.",
          responses: eventStream("An event stream of the chat's messages", [400, 403, 404, 429]),
        },
      },
    )
    .get(
      "/api/inbox/stream",
      ({ user, query, request }) => openInboxStream(platform, user.id, query.since, request.headers.get("last-event-id"), request.signal),
      {
        user: true,
        query: InboxStreamQuery,
        headers: AuthorizedResumeHeaders,
        detail: {
          summary: "Live inbox events of the user's bots (Server-Sent Events)",
          description:
            "Authorization: Bearer <user token> (read it with fetch(); EventSource cannot send headers). Events are named by kind " +
            "(conversation_created, message_created, conversation_updated, message_updated, message_deleted; data = " +
            "{kind, owner_id, bot_id, conversation, message?}), `typing`, `operator_typing`, plus `ready` and `reset` (reload: the gap was too large). " +
            "Covers every bot the user is a member of. Only for this user: `conversation_read` ({conversation_id, bot_id, unread_count}: " +
            "read in another tab or device) and `bots_changed` ({bot_id}: joined, removed, renamed or deleted; reload the bot list). " +
            "Every event id is a resume cursor (database time in ms); replayed events may repeat ones already seen.",
          responses: eventStream("An event stream of inbox changes", [400, 401, 429]),
        },
      },
    );
