import { t } from "elysia";
import type { Services } from "../../services.ts";
import { errors, Ok, ok, withExample } from "../envelope.ts";
import { feature } from "../feature.ts";
import {
  AnswerCallbackQueryRequest, BotCommandSchema, BotIdPath, EditMessageReplyMarkupRequest, HandoffRequest, HandoffResult, BotInfo, DeleteMessageRequest, EditMessageTextRequest, GetUpdatesQuery, RuntimeMessage,
  SendMessageRequest, SetMyCommandsRequest, Update,
} from "./model.ts";
type Update = typeof Update.static;
import { botAuth } from "./plugin.ts";

const AUTH_ERRORS = errors(400, 401, 403);

/**
 * Get-updates' answer. Updates that carry the JSON they were stored as go out as that text:
 * each was encoded once, by its writer, from the records the Update schema describes (the runtime
 * tests check every kind's stored text against it), so cleaning, checking and encoding them again
 * only repeated that work, about 7 µs per update. Any other answer goes through the schema.
 */
function updatesAnswer(updates: { payload: Record<string, unknown>; json?: string }[]) {
  if (updates.length === 0 || updates.some((u) => u.json === undefined)) return ok(updates.map((u) => u.payload as Update));
  const body = `{"ok":true,"result":[${updates.map((u) => u.json).join(",")}]}`;
  // Typed as the envelope it holds: Elysia's handler types take a Response or the schema, not either.
  return new Response(body, { headers: { "content-type": "application/json" } }) as unknown as ReturnType<typeof ok<Update[]>>;
}
/** Every runtime path names the bot; the token must be that bot's. */
const PATH_NOTE = "The bot's `id` (its UUID, from the bot card) goes in the path of every runtime call; the bot token in `Authorization: Bearer`.";
const TRUE = (description: string) => Ok(withExample(t.Literal(true), true), description);

export const runtimeRoutes = (services: Services) =>
  feature({ tags: ["Bot Runtime"] })
    .use(botAuth(services))
    .get(
      "/api/bots/:id/get-updates",
      async ({ bot, query }) => updatesAnswer(await services.runtime.poll(bot, query)),
      {
        bot: true,
        params: BotIdPath,
        query: GetUpdatesQuery,
        response: {
          200: Ok(t.Array(Update), "Pending updates, oldest first, update_id ascending; empty when the timeout passed without any"),
          ...AUTH_ERRORS,
          ...errors({ 409: "A webhook is set, or a newer get-updates call for this bot took over this one" }, 503),
        },
        detail: {
          summary: "Long-poll the bot's updates (Telegram getUpdates semantics)",
          description: "Answers at once when updates are pending, else waits up to `timeout` seconds for the first one. " +
            "`offset` confirms: every update with update_id < offset is forgotten for good, so pass the last update_id + 1 " +
            "once you have handled it; a negative offset returns the last |offset| pending updates. Updates not confirmed are " +
            "returned again; each expires 24 hours after it was made. Only one poll per bot at a time: a newer one ends the " +
            "older with 409, and while a webhook is set get-updates answers 409. " + PATH_NOTE,
        },
      },
    )
    .post("/api/bots/:id/send-message", async ({ bot, body }) => ok(await services.runtime.send(bot, body)), {
      bot: true,
      params: BotIdPath,
      body: SendMessageRequest,
      response: {
        200: Ok(RuntimeMessage, "The message as stored and delivered to the chat's channel"),
        ...AUTH_ERRORS,
        ...errors({ 404: "No chat with this chat_id for this bot (a chat starts with the visitor's first message)" }, 429, 503),
      },
      detail: {
        summary: "Send a message into an existing chat of this bot",
        description: "Appends the bot's answer to the conversation: the operator inbox and the visitor's widget or channel see it. " +
          "Limited to about 30 messages per second per bot (429 with retry_after). " +
          "Formatting: parse_mode (HTML, MarkdownV2, Markdown, Telegram's syntax) or entities; stored as text + entities, rendered by the widget and inbox. " +
          "reply_markup: inline_keyboard (callback_data and url buttons; a press reaches the bot as a callback_query update), keyboard (reply keyboard), remove_keyboard. " + PATH_NOTE,
      },
    })
    .post("/api/bots/:id/edit-message-text", async ({ bot, body }) => ok(await services.runtime.editText(bot, body)), {
      bot: true,
      params: BotIdPath,
      body: EditMessageTextRequest,
      response: { 200: Ok(RuntimeMessage, "The message with its new text and edit_date"), ...AUTH_ERRORS, ...errors({ 404: "No message with this message_id sent by this bot" }) },
      detail: { summary: "Edit the text of a message this bot sent", description: "Replaces the text (and reply_markup) of one of the bot's own messages; viewers see the change live. " + PATH_NOTE },
    })
    .post("/api/bots/:id/edit-message-reply-markup", async ({ bot, body }) => ok(await services.runtime.editMarkup(bot, body)), {
      bot: true,
      params: BotIdPath,
      body: EditMessageReplyMarkupRequest,
      response: { 200: Ok(RuntimeMessage, "The message with its new inline keyboard (or none)"), ...AUTH_ERRORS, ...errors(404) },
      detail: {
        summary: "Replace or remove the inline keyboard of a message this bot sent",
        description: "Telegram's editMessageReplyMarkup: the widget shows the new keyboard live. Without reply_markup the keyboard is removed.",
      },
    })
    .post("/api/bots/:id/answer-callback-query", async ({ bot, body }) => ok(await services.runtime.answerCallbackQuery(bot, body)), {
      bot: true,
      params: BotIdPath,
      body: AnswerCallbackQueryRequest,
      response: { 200: Ok(withExample(t.Literal(true), true), "The press is answered; the visitor's button stops spinning"), ...AUTH_ERRORS },
      detail: {
        summary: "Answer a visitor's button press (callback_query)",
        description:
          "Telegram's answerCallbackQuery. The widget stops the pressed button's spinner and shows `text` as a toast, or as an alert with `show_alert`. " +
          "Each press is answered once, within 15 minutes; otherwise 400 \"query is too old and response timeout expired or query ID is invalid\".",
      },
    })
    .post("/api/bots/:id/handoff", async ({ bot, body }) => ok(await services.runtime.handoff(bot, body.chat_id)), {
      bot: true,
      params: BotIdPath,
      body: HandoffRequest,
      response: { 200: Ok(HandoffResult, "Who handles the chat now"), ...AUTH_ERRORS, ...errors(404) },
      detail: {
        summary: "Hand a chat over to a human operator",
        description:
          "Marks the conversation as handled by a human (the inbox shows it as taken over). From then on the bot gets no updates for this chat " +
          "(messages, operator replies, button presses) until an operator gives it back with POST /api/inbox/{id}/release. The bot can still send to it. " +
          "Facade: the non-Telegram method handOffChat with chat_id.",
      },
    })
    .post("/api/bots/:id/delete-message", async ({ bot, body }) => ok(await services.runtime.remove(bot, body.message_id)), {
      bot: true,
      params: BotIdPath,
      body: DeleteMessageRequest,
      response: { 200: TRUE("The message is deleted"), ...AUTH_ERRORS, ...errors({ 404: "No message with this message_id sent by this bot" }) },
      detail: { summary: "Delete a message this bot sent", description: "Removes one of the bot's own messages from the conversation for every viewer. " + PATH_NOTE },
    })
    .post("/api/bots/:id/set-my-commands", async ({ bot, body }) => ok(await services.runtime.setCommands(bot, body.commands)), {
      bot: true,
      params: BotIdPath,
      body: SetMyCommandsRequest,
      response: { 200: TRUE("The command list is replaced"), ...AUTH_ERRORS },
      detail: { summary: "Replace the bot's command list", description: "The widget offers these commands to visitors; a message starting with one carries a bot_command entity. " + PATH_NOTE },
    })
    .get("/api/bots/:id/get-my-commands", async ({ bot }) => ok(await services.runtime.commands(bot)), {
      bot: true,
      params: BotIdPath,
      response: { 200: Ok(t.Array(BotCommandSchema), "The commands in the order they were set (empty when none)"), ...AUTH_ERRORS },
      detail: { summary: "The bot's command list", description: "What set-my-commands stored last. " + PATH_NOTE },
    })
    .post("/api/bots/:id/delete-my-commands", async ({ bot }) => ok(await services.runtime.deleteCommands(bot)), {
      bot: true,
      params: BotIdPath,
      response: { 200: TRUE("The command list is empty now"), ...AUTH_ERRORS },
      detail: { summary: "Empty the bot's command list", description: "The widget stops offering commands. " + PATH_NOTE },
    })
    .get("/api/bot/get-me", ({ bot }) => ok(services.runtime.info(bot)), {
      bot: true,
      response: { 200: Ok(BotInfo, "The bot this token belongs to"), ...errors(401) },
      detail: {
        summary: "The bot this token belongs to",
        description: "The one runtime call without the bot's id in its path: use it to learn the id (and check the token) at start-up.",
      },
    });
