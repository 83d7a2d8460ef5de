import { t } from "elysia";
import type { Platform } from "../../platform.ts";
import { errors, Ok, ok } from "../envelope.ts";
import { feature } from "../feature.ts";
import {
  BotCommandSchema, BotIdPath, BotInfo, DeleteMessageRequest, EditMessageTextRequest, GetUpdatesQuery, RuntimeMessage,
  SendMessageRequest, SetMyCommandsRequest, Update,
} from "./model.ts";
type Update = typeof Update.static;
import { botAuth } from "./plugin.ts";
import {
  botInfo, deleteMessage, deleteMyCommands, editMessageText, getMyCommands, getUpdates, sendMessage, setMyCommands,
} from "../../domain/runtime.ts";

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
      detail: { summary: "Send a message into an existing chat of this bot" },
    })
    .post("/api/bots/:id/edit-message-text", async ({ bot, body }) => ok(await editMessageText(platform, bot, body)), {
      bot: true,
      params: BotIdPath,
      body: EditMessageTextRequest,
      response: { 200: Ok(RuntimeMessage), ...AUTH_ERRORS, ...errors(404) },
      detail: { summary: "Edit the text of a message this bot sent" },
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
