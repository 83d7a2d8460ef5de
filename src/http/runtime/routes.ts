import { t } from "elysia";
import type { Platform } from "../../platform.ts";
import { errors, Ok, ok } from "../envelope.ts";
import { feature } from "../feature.ts";
import {
  AnswerCallbackQueryRequest, BotCommandSchema, BotIdPath, EditMessageReplyMarkupRequest, HandoffRequest, HandoffResult, BotInfo, DeleteMessageRequest, EditMessageTextRequest, GetUpdatesQuery, RuntimeMessage,
  SendMessageRequest, SetMyCommandsRequest, Update,
} from "./model.ts";
type Update = typeof Update.static;
import { botAuth } from "./plugin.ts";
import {
  botInfo, deleteMessage, deleteMyCommands, editMessageReplyMarkup, editMessageText, getMyCommands, getUpdates, sendMessage, setMyCommands,
} from "../../domain/runtime.ts";
import { answerCallbackQuery } from "../../domain/buttons.ts";
import { botHandoff } from "../../domain/handoff.ts";

const AUTH_ERRORS = errors(400, 401, 403);

export const runtimeRoutes = (platform: Platform) =>
  feature({ tags: ["Bot Runtime"] })
    .use(botAuth(platform))
    .get(
      "/api/bots/:id/get-updates",
      async ({ bot, query }) => ok((await getUpdates(platform, bot, query)).map((u) => u.payload as Update)),
      {
        bot: true,
        params: BotIdPath,
        query: GetUpdatesQuery,
        response: { 200: Ok(t.Array(Update)), ...AUTH_ERRORS, ...errors(409, 503) },
        detail: { summary: "Long-poll the bot's updates (Telegram getUpdates semantics)" },
      },
    )
    .post("/api/bots/:id/send-message", async ({ bot, body }) => ok(await sendMessage(platform, bot, body)), {
      bot: true,
      params: BotIdPath,
      body: SendMessageRequest,
      response: { 200: Ok(RuntimeMessage), ...AUTH_ERRORS, ...errors(404, 429, 503) },
      detail: {
        summary: "Send a message into an existing chat of this bot",
        description:
          "Formatting: parse_mode (HTML, MarkdownV2, Markdown, Telegram's syntax) or entities; stored as text + entities, rendered by the widget and inbox. " +
          "reply_markup: inline_keyboard (callback_data and url buttons; a press reaches the bot as a callback_query update), keyboard (reply keyboard), remove_keyboard.",
      },
    })
    .post("/api/bots/:id/edit-message-text", async ({ bot, body }) => ok(await editMessageText(platform, bot, body)), {
      bot: true,
      params: BotIdPath,
      body: EditMessageTextRequest,
      response: { 200: Ok(RuntimeMessage), ...AUTH_ERRORS, ...errors(404) },
      detail: { summary: "Edit the text of a message this bot sent" },
    })
    .post("/api/bots/:id/edit-message-reply-markup", async ({ bot, body }) => ok(await editMessageReplyMarkup(platform, bot, body)), {
      bot: true,
      params: BotIdPath,
      body: EditMessageReplyMarkupRequest,
      response: { 200: Ok(RuntimeMessage), ...AUTH_ERRORS, ...errors(404) },
      detail: {
        summary: "Replace or remove the inline keyboard of a message this bot sent",
        description: "Telegram's editMessageReplyMarkup: the widget shows the new keyboard live. Without reply_markup the keyboard is removed.",
      },
    })
    .post("/api/bots/:id/answer-callback-query", async ({ bot, body }) => ok(await answerCallbackQuery(platform, bot, body)), {
      bot: true,
      params: BotIdPath,
      body: AnswerCallbackQueryRequest,
      response: { 200: Ok(t.Literal(true)), ...AUTH_ERRORS },
      detail: {
        summary: "Answer a visitor's button press (callback_query)",
        description:
          "Telegram's answerCallbackQuery. The widget stops the pressed button's spinner and shows `text` as a toast, or as an alert with `show_alert`. " +
          "Each press is answered once, within 15 minutes; otherwise 400 \"query is too old and response timeout expired or query ID is invalid\".",
      },
    })
    .post("/api/bots/:id/handoff", async ({ bot, body }) => ok(await botHandoff(platform, bot, body.chat_id)), {
      bot: true,
      params: BotIdPath,
      body: HandoffRequest,
      response: { 200: Ok(HandoffResult), ...AUTH_ERRORS, ...errors(404) },
      detail: {
        summary: "Hand a chat over to a human operator",
        description:
          "Marks the conversation as handled by a human (the inbox shows it as taken over). From then on the bot gets no updates for this chat " +
          "(messages, operator replies, button presses) until an operator gives it back with POST /api/inbox/{id}/release. The bot can still send to it. " +
          "Facade: the non-Telegram method handOffChat with chat_id.",
      },
    })
    .post("/api/bots/:id/delete-message", async ({ bot, body }) => ok(await deleteMessage(platform, bot, body.message_id)), {
      bot: true,
      params: BotIdPath,
      body: DeleteMessageRequest,
      response: { 200: Ok(t.Literal(true)), ...AUTH_ERRORS, ...errors(404) },
      detail: { summary: "Delete a message this bot sent" },
    })
    .post("/api/bots/:id/set-my-commands", async ({ bot, body }) => ok(await setMyCommands(platform, bot, body.commands)), {
      bot: true,
      params: BotIdPath,
      body: SetMyCommandsRequest,
      response: { 200: Ok(t.Literal(true)), ...AUTH_ERRORS },
      detail: { summary: "Replace the bot's command list" },
    })
    .get("/api/bots/:id/get-my-commands", async ({ bot }) => ok(await getMyCommands(platform, bot)), {
      bot: true,
      params: BotIdPath,
      response: { 200: Ok(t.Array(BotCommandSchema)), ...AUTH_ERRORS },
      detail: { summary: "The bot's command list" },
    })
    .post("/api/bots/:id/delete-my-commands", async ({ bot }) => ok(await deleteMyCommands(platform, bot)), {
      bot: true,
      params: BotIdPath,
      response: { 200: Ok(t.Literal(true)), ...AUTH_ERRORS },
      detail: { summary: "Empty the bot's command list" },
    })
    .get("/api/bot/get-me", ({ bot }) => ok(botInfo(bot)), {
      bot: true,
      response: { 200: Ok(BotInfo), ...errors(401) },
      detail: { summary: "The bot this token belongs to" },
    });
