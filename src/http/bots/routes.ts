import { feature } from "../feature.ts";
import { t } from "elysia";
import type { Services } from "../../services.ts";
import { userAuth } from "../auth/plugin.ts";
import { errors, Ok, ok, withExample } from "../envelope.ts";
import { Bot, BotCreateRequest, BotIdParams, BotPatchRequest } from "./model.ts";

export const botRoutes = (services: Services) =>
  feature({ prefix: "/api/bots", tags: ["Bots"] })
    .use(userAuth(services))
    .get("", async ({ user }) => ok(await services.bots.list(user)), {
      user: true,
      response: { 200: Ok(t.Array(Bot), "Every bot the caller is a member of, oldest first"), ...errors(401) },
      detail: {
        summary: "List the user's bots",
        description: "Every bot the caller is a member of, with `role`; `token` and `integration_key` only where the caller is the owner.",
      },
    })
    .post(
      "",
      async ({ user, body, set }) => {
        const bot = await services.bots.create(user, body);
        set.status = 201;
        return ok(bot);
      },
      {
        user: true,
        body: BotCreateRequest,
        response: { 201: Ok(Bot, "The new bot's card: keep the token secret"), ...errors(400, 401, 429) },
        detail: {
          summary: "Create a bot",
          description: "The caller becomes its owner. The bot gets a bot token (runtime API), a widget key (public, for the widget) and an integration key (site forms).",
        },
      },
    )
    .get(
      "/:id",
      async ({ user, params }) => ok(await services.bots.get(user, params.id)),
      {
        user: true,
        params: BotIdParams,
        response: { 200: Ok(Bot, "The bot's card"), ...errors(400, 401, { 404: "The caller is not a member of a bot with this id" }) },
        detail: {
          summary: "The bot's card (token, widget key, integration key)",
          description: "Members only (404 otherwise); the token and integration key only for the owner.",
        },
      },
    )
    .patch(
      "/:id",
      async ({ user, params, body }) => ok(await services.bots.rename(user, params.id, body)),
      {
        user: true,
        params: BotIdParams,
        body: BotPatchRequest,
        response: { 200: Ok(Bot, "The bot's card with the new name and description"), ...errors(400, 401, 403, 404) },
        detail: {
          summary: "Rename the bot (owner)",
          description: "Changes the name and/or description; the username (how clients address the bot) stays.",
        },
      },
    )
    .delete("/:id", async ({ user, params }) => ok(await services.bots.remove(user, params.id)), {
      user: true,
      params: BotIdParams,
      response: { 200: Ok(withExample(t.Literal(true), true), "The bot and all its data are gone"), ...errors(400, 401, 403, 404) },
      detail: {
        summary: "Delete the bot and all its data (owner)",
        description:
          "Removes the bot, its channels, contacts, conversations, messages, members, invites, canned replies, webhook and " +
          "pending updates. The token stops working at once. Cannot be undone.",
      },
    })
    .post(
      "/:id/token",
      async ({ user, params }) => ok(await services.bots.rotateToken(user, params.id)),
      {
        user: true,
        params: BotIdParams,
        response: { 200: Ok(Bot, "The bot's card with the new token"), ...errors(400, 401, { 403: "Only the owner rotates the token" }, { 404: "The caller is not a member of a bot with this id" }) },
        detail: {
          summary: "Rotate the bot token (the old one stops working at once)",
          description: "Owner only. Issues a new bot token; requests with the old one get 401 from now on, and a get-updates poll parked with it ends with 401 at once. The bot's id, keys and pending updates stay.",
        },
      },
    );
