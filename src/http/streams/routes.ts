import { t } from "elysia";
import type { Services } from "../../services.ts";
import { userAuth } from "../auth/plugin.ts";
import { clientIp } from "../client.ts";
import { ErrorResponse, errors } from "../envelope.ts";
import { feature } from "../feature.ts";
import { publicAccess } from "../public.ts";
import { SafeInt } from "../input.ts";
import { oneOf } from "../feature.ts";
import { CHANNEL_TYPES } from "../channels/model.ts";
import { IdentityFields, MAX_EXTERNAL_ID_LENGTH } from "../messages/model.ts";
import { feedResponse } from "./sse.ts";

export const STREAMS_TAG = "Live streams";

const InboxStreamQuery = t.Object({
  since: t.Optional(SafeInt({ minimum: 0, description: "Resume cursor (an event id); Last-Event-ID wins" })),
});

const WidgetStreamQuery = t.Object({
  chat_id: t.String({ minLength: 1, maxLength: MAX_EXTERNAL_ID_LENGTH }),
  widget_key: t.Optional(t.String({ minLength: 1, maxLength: MAX_EXTERNAL_ID_LENGTH })),
  bot_id: t.Optional(t.String({ format: "uuid" })),
  channel: t.Optional(oneOf(CHANNEL_TYPES)),
  since: t.Optional(SafeInt({ minimum: 0, description: "message_id: send messages after it first (Last-Event-ID wins)" })),
  ...IdentityFields,
});

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
const eventStream = (description: string, example: string, statuses: number[]) => ({
  200: { description, content: { "text/event-stream": { schema: { type: "string" as const }, example } } },
  ...Object.fromEntries(Object.entries(errors(...statuses)).map(([status, schema]) => [
    status, { description: schema.description, content: { "application/json": { schema: ErrorResponse, example: schema.examples[0] } } },
  ])),
});

export const streamRoutes = (services: Services) =>
  feature({ tags: [STREAMS_TAG] })
    .use(userAuth(services))
    .use(publicAccess(services))
    .get(
      "/api/messages/stream",
      async ({ publicBot, query, request }) =>
        feedResponse(
          await services.feeds.chat(publicBot, query, { ip: clientIp(request), lastEventId: request.headers.get("last-event-id") }),
          request.signal,
        ),
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
          responses: eventStream("An event stream of the chat's messages", 'event: ready\nid: 16\ndata: {}\n\nevent: message\nid: 17\ndata: {"message_id":"17","text":"Hello!","sender":"bot"}\n\n', [400, 403, 404, 429]),
        },
      },
    )
    .get(
      "/api/inbox/stream",
      ({ user, session, query, request }) =>
        feedResponse(services.feeds.inbox(user, session, query.since, request.headers.get("last-event-id")), request.signal),
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
            "The stream ends with `session_revoked` as soon as its token is logged out or the password changes. " +
            "Every event id is a resume cursor (database time in ms); replayed events may repeat ones already seen.",
          responses: eventStream("An event stream of inbox changes", 'event: ready\nid: 1767225600000\ndata: {}\n\nevent: message_created\nid: 1767225601234\ndata: {"kind":"message_created","bot_id":"6f1c2d8e-3b4a-4c5d-9e8f-0a1b2c3d4e5f"}\n\n', [400, 401, 429]),
        },
      },
    );
