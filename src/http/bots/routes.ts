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
      response: { 200: Ok(t.Array(Bot)), ...errors(401) },
      detail: { summary: "List the user's bots" },
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
        response: { 201: Ok(Bot), ...errors(400, 401, 429) },
        detail: { summary: "Create a bot" },
      },
    )
    .get(
      "/:id",
      async ({ user, params }) => ok(toBot(await requireOwnBot(platform.db, user.id, params.id), platform.secretBox)),
      {
        user: true,
        params: BotIdParams,
        response: { 200: Ok(Bot), ...errors(400, 401, 404) },
        detail: { summary: "The bot's card (token, widget key, integration key)" },
      },
    )
    .post(
      "/:id/token",
      async ({ user, params }) => {
        const bot = await rotateToken(platform.db, platform.secretBox, user.id, params.id);
        await platform.bots.changed(bot.id);
        return ok(bot);
      },
      {
        user: true,
        params: BotIdParams,
        response: { 200: Ok(Bot), ...errors(400, 401, 404) },
        detail: { summary: "Rotate the bot token (the old one stops working at once)" },
      },
    );
