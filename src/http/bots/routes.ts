import { feature } from "../feature.ts";
import { t } from "elysia";
import type { Platform } from "../../platform.ts";
import { userAuth } from "../auth/plugin.ts";
import { errors, Ok, ok } from "../envelope.ts";
import { Bot, BotCreateRequest, BotIdParams, BotPatchRequest } from "./model.ts";
import { createBot, listBots, rotateToken, toBot } from "./service.ts";
import { announceBotsChanged, requireMember } from "../../domain/members.ts";
import { removeBot, renameBot } from "../../domain/bots.ts";

export const botRoutes = (platform: Platform) =>
  feature({ prefix: "/api/bots", tags: ["Bots"] })
    .use(userAuth(platform))
    .get("", async ({ user }) => ok(await listBots(platform.db, platform.secretBox, user.id)), {
      user: true,
      response: { 200: Ok(t.Array(Bot)), ...errors(401) },
      detail: {
        summary: "List the user's bots",
        description: "Every bot the caller is a member of, with `role`; `token` and `integration_key` only where the caller is the owner.",
      },
    })
    .post(
      "",
      async ({ user, body, set }) => {
        const bot = await createBot(platform.db, platform.secretBox, user.id, body, platform.config);
        // The creator's open inbox streams start following the new bot.
        await announceBotsChanged(platform.bus, [user.id], bot.id).catch(() => undefined);
        set.status = 201;
        return ok(bot);
      },
      {
        user: true,
        body: BotCreateRequest,
        response: { 201: Ok(Bot), ...errors(400, 401, 429) },
        detail: { summary: "Create a bot", description: "The caller becomes its owner." },
      },
    )
    .get(
      "/:id",
      async ({ user, params }) => {
        const bot = await requireMember(platform.db, user.id, params.id);
        return ok(toBot(bot, platform.secretBox, bot.role));
      },
      {
        user: true,
        params: BotIdParams,
        response: { 200: Ok(Bot), ...errors(400, 401, 404) },
        detail: {
          summary: "The bot's card (token, widget key, integration key)",
          description: "Members only (404 otherwise); the token and integration key only for the owner.",
        },
      },
    )
    .patch(
      "/:id",
      async ({ user, params, body }) => {
        const bot = await renameBot(platform, user.id, params.id, body);
        return ok(toBot(bot, platform.secretBox, bot.role));
      },
      {
        user: true,
        params: BotIdParams,
        body: BotPatchRequest,
        response: { 200: Ok(Bot), ...errors(400, 401, 403, 404) },
        detail: {
          summary: "Rename the bot (owner)",
          description: "Changes the name and/or description; the username (how clients address the bot) stays.",
        },
      },
    )
    .delete("/:id", async ({ user, params }) => ok(await removeBot(platform, user.id, params.id)), {
      user: true,
      params: BotIdParams,
      response: { 200: Ok(t.Literal(true)), ...errors(400, 401, 403, 404) },
      detail: {
        summary: "Delete the bot and all its data (owner)",
        description:
          "Removes the bot, its channels, contacts, conversations, messages, members, invites, canned replies, webhook and " +
          "pending updates. The token stops working at once. Cannot be undone.",
      },
    })
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
        response: { 200: Ok(Bot), ...errors(400, 401, 403, 404) },
        detail: { summary: "Rotate the bot token (the old one stops working at once)", description: "Owner only." },
      },
    );
