import { t } from "elysia";
import type { Platform } from "../../platform.ts";
import { errors, Ok, ok } from "../envelope.ts";
import { publicAccess } from "../public.ts";
import { feature } from "../feature.ts";
import { Message } from "../inbox/model.ts";
import { pressInlineButton } from "../../domain/buttons.ts";
import { AcceptedMessage, ButtonPressRequest, ButtonPressResult, HistoryQuery, IdempotencyHeaders, IncomingMessageRequest } from "./model.ts";
import { acceptMessage, chatHistory } from "../../domain/intake.ts";

export const messageRoutes = (platform: Platform) =>
  feature({ prefix: "/api/messages", tags: ["Messages"] })
    .use(publicAccess(platform))
    .post("", async ({ publicBot, body, headers }) => ok(await acceptMessage(platform, publicBot, body, headers["idempotency-key"])), {
      publicBot: { from: "body", limit: true, origin: true },
      body: IncomingMessageRequest,
      headers: IdempotencyHeaders,
      response: { 200: Ok(AcceptedMessage), ...errors(400, 403, 404, 413, 429, 503) },
      detail: {
        summary: "Deliver an incoming message",
        description:
          "Selects the bot by bot_id or widget_key. A repeat with the same metadata.client_message_id (or Idempotency-Key header) returns the first result and creates nothing.",
      },
    })
    .post("/callback-query", async ({ publicBot, body }) => ok(await pressInlineButton(platform, publicBot, body)), {
      publicBot: { from: "body", limit: true, origin: true },
      body: ButtonPressRequest,
      response: { 200: Ok(ButtonPressResult), ...errors(400, 403, 404, 409, 429, 503) },
      detail: {
        summary: "Press an inline button (the widget's callback query)",
        description:
          "A visitor pressed a callback_data button under one of the bot's messages in a web or widget chat. The bot receives a callback_query update " +
          "(native and Telegram facade shapes, subject to allowed_updates); its answer (answer-callback-query / answerCallbackQuery) arrives on " +
          "GET /api/messages/stream as a callback_answer event with this callback_query_id. The button must exist under that message (else 400); " +
          "409 while an operator has taken the conversation over.",
      },
    })
    .get("", async ({ publicBot, query }) => ok(await chatHistory(platform, publicBot, query)), {
      publicBot: { from: "query", origin: true },
      query: HistoryQuery,
      response: { 200: Ok(t.Array(Message)), ...errors(400, 403, 404, 429) },
      detail: { summary: "Message history of a web or widget chat (oldest first)" },
    });
