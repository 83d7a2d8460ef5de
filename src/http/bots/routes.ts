import { feature } from "../feature.ts";
import { Elysia, t } from "elysia";
import type { Platform } from "../../platform.ts";
import { userAuth } from "../auth/plugin.ts";
import { errors, Ok, ok } from "../envelope.ts";
import { Bot, BotCreateRequest, BotIdParams } from "./model.ts";
import { createBot, listBots, requireOwnBot, rotateToken, toBot } from "./service.ts";

export const botRoutes = (platform: Platform) =>
  feature({ prefix: "/api/bots", tags: ["Bots"] })
    .use(userAuth(platform))
    .get("", async ({ user }) => ok(await listBots(platform.db, platform.secretBox, user.id)), {
      user: true,
      response: { 200: Ok(t.Array(Bot), "Every bot of the user, oldest first, with tokens and keys"), ...errors(401) },
      detail: { summary: "List the user's bots", description: "The bot cards of the calling user; another user's bots are never listed." },
    })
    .post(
      "",
      async ({ user, body, set }) => {
        const bot = await createBot(platform.db, platform.secretBox, user.id, body, platform.config);
        set.status = 201;
        return ok(bot);
      },
      {
        user: true,
        body: BotCreateRequest,
        response: { 201: Ok(Bot, "The new bot's card: keep the token secret"), ...errors(400, 401, 429) },
        detail: {
          summary: "Create a bot",
          description: "Makes a bot with a bot token (runtime API), a widget key (public, for the widget) and an integration key (site forms). Its eight channels start with web and widget enabled.",
        },
      },
    )
    .get(
      "/:id",
      async ({ user, params }) => ok(toBot(await requireOwnBot(platform.db, user.id, params.id), platform.secretBox)),
      {
        user: true,
        params: BotIdParams,
        response: { 200: Ok(Bot, "The bot's card"), ...errors(400, 401, { 404: "No bot with this id belongs to the user" }) },
        detail: { summary: "The bot's card (token, widget key, integration key)", description: "One bot of the calling user, with its secrets." },
      },
    )
    .post(
      "/:id/token",
      async ({ user, params }) => ok(await rotateToken(platform.db, platform.secretBox, user.id, params.id)),
      {
        user: true,
        params: BotIdParams,
        response: { 200: Ok(Bot, "The bot's card with the new token"), ...errors(400, 401, { 404: "No bot with this id belongs to the user" }) },
        detail: {
          summary: "Rotate the bot token (the old one stops working at once)",
          description: "Issues a new bot token; requests with the old one get 401 from now on. The bot's id, keys and pending updates stay.",
        },
      },
    );
