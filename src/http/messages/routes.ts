import { t } from "elysia";
import type { Services } from "../../services.ts";
import { errors, Ok, ok } from "../envelope.ts";
import { publicAccess, signedRequest } from "../public.ts";
import { feature } from "../feature.ts";
import { Message } from "../inbox/model.ts";
import { AcceptedMessage, ButtonPressRequest, ButtonPressResult, HistoryQuery, IdempotencyHeaders, IncomingMessageRequest } from "./model.ts";

export const messageRoutes = (services: Services) =>
  feature({ prefix: "/api/messages", tags: ["Messages"] })
    .use(publicAccess(services))
    .post("", async ({ publicBot, body, headers, request }) =>
      ok(await services.public.accept(publicBot, body, headers["idempotency-key"], await signedRequest(request))), {
      publicBot: { from: "body", limit: true, origin: true },
      body: IncomingMessageRequest,
      headers: IdempotencyHeaders,
      response: {
        200: Ok(AcceptedMessage, "Stored: the bot gets it as an update and the inbox shows it"),
        ...errors(
          400, { 401: "The channel requires signed requests (require_signature) and this one is unsigned, stale or wrongly signed" },
          { 403: "The channel is disabled, or the page's Origin is not among the widget's allowed origins" }, { 404: "No bot with this bot_id or widget_key" },
          { 409: "chat_id is a conversation of another channel (a chat's channel is fixed when it is created)" }, 413, 429, 503,
        ),
      },
      detail: {
        summary: "Deliver an incoming message",
        description:
          "Selects the bot by bot_id or widget_key. A repeat in the same chat with the same metadata.client_message_id (or Idempotency-Key header) returns the first result and creates nothing; " +
          "the same key in another chat is another message. A chat's channel is fixed by its first message (another channel gets 409), and chat ids beginning with `form:` belong to the server (400). " +
          "metadata may not set callback_query, form, email or client_timestamp (400). timestamp is Unix seconds (milliseconds when above 10^12); one more than 5 minutes ahead is replaced by the " +
          "server's time and kept as metadata.client_timestamp. A channel with require_signature needs X-Signature: sha256=<hex HMAC-SHA256(secret, \"<X-Signature-Timestamp>.<raw body>\")> " +
          "and X-Signature-Timestamp (Unix seconds, within 5 minutes). A 200 means the message is committed and its update will reach the bot; after a 503 nothing was stored, so retry.",
      },
    })
    .post("/callback-query", async ({ publicBot, body }) => ok(await services.public.pressButton(publicBot, body)), {
      publicBot: { from: "body", limit: true, origin: true },
      body: ButtonPressRequest,
      response: { 200: Ok(ButtonPressResult, "The press is recorded and reaches the bot as a callback_query update"), ...errors(400, 403, 404, 409, 429, 503) },
      detail: {
        summary: "Press an inline button (the widget's callback query)",
        description:
          "A visitor pressed a callback_data button under one of the bot's messages in a web or widget chat. The bot receives a callback_query update " +
          "(native and Telegram facade shapes, subject to allowed_updates); its answer (answer-callback-query / answerCallbackQuery) arrives on " +
          "GET /api/messages/stream as a callback_answer event with this callback_query_id. The button must exist under that message (else 400); " +
          "409 while an operator has taken the conversation over.",
      },
    })
    .get("", async ({ publicBot, query }) => ok(await services.public.history(publicBot, query)), {
      publicBot: { from: "query", origin: true },
      query: HistoryQuery,
      response: { 200: Ok(t.Array(Message), "Up to limit messages, oldest first; empty for an unknown chat"), ...errors(400, 403, 404, 429) },
      detail: {
        summary: "Message history of a web or widget chat (oldest first)",
        description: "What the visitor's own page shows after a reload. Page back with before = the smallest message_id you have.",
      },
    });
