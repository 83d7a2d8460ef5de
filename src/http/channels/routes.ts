import { feature } from "../feature.ts";
import { Elysia, t } from "elysia";
import type { Services } from "../../services.ts";
import { userAuth } from "../auth/plugin.ts";
import { BotIdParams } from "../bots/model.ts";
import { errors, Ok, ok } from "../envelope.ts";
import { Channel, ChannelPatch } from "./model.ts";

export const channelRoutes = (services: Services) =>
  feature({ prefix: "/api/bots", tags: ["Channels"] })
    .use(userAuth(services))
    .get(
      "/:id/channels",
      async ({ user, params }) => ok(await services.channels.list(user, params.id)),
      {
        user: true,
        params: BotIdParams,
        response: { 200: Ok(t.Array(Channel), "The eight channels in a fixed order, configured or not"), ...errors(400, 401, 403, { 404: "The caller is not a member of a bot with this id" }) },
        detail: { summary: "All eight channels of the bot with their state", description: "Whether each channel accepts messages and its settings (widget look, callback URL; secrets are masked)." },
      },
    )
    .patch(
      "/:id/channels",
      async ({ user, params, body }) => ok(await services.channels.update(user, params.id, body)),
      {
        user: true,
        params: BotIdParams,
        body: ChannelPatch,
        response: { 200: Ok(Channel, "The channel as stored now"), ...errors(400, 401, 403, { 404: "The caller is not a member of a bot with this id" }) },
        detail: {
          summary: "Enable, disable or configure one channel",
          description: "Changes only what is given: is_active, and config keys merged into the stored config. A disabled channel refuses incoming messages with 403.",
        },
      },
    );
