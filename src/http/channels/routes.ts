import { feature } from "../feature.ts";
import { Elysia, t } from "elysia";
import type { Platform } from "../../platform.ts";
import { userAuth } from "../auth/plugin.ts";
import { BotIdParams } from "../bots/model.ts";
import { requireMember } from "../../domain/members.ts";
import { errors, Ok, ok } from "../envelope.ts";
import { Channel, ChannelPatch } from "./model.ts";
import { channelsOfBot, updateChannel } from "./service.ts";

export const channelRoutes = (platform: Platform) =>
  feature({ prefix: "/api/bots", tags: ["Channels"] })
    .use(userAuth(platform))
    .get(
      "/:id/channels",
      async ({ user, params }) => {
        const bot = await requireMember(platform.db, user.id, params.id, "owner");
        return ok(await channelsOfBot(platform.db, bot.id));
      },
      {
        user: true,
        params: BotIdParams,
        response: { 200: Ok(t.Array(Channel)), ...errors(400, 401, 403, 404) },
        detail: { summary: "All eight channels of the bot with their state" },
      },
    )
    .patch(
      "/:id/channels",
      async ({ user, params, body }) => {
        const bot = await requireMember(platform.db, user.id, params.id, "owner");
        const channel = await updateChannel(platform.db, platform.config, bot.id, body.channel_type, body.is_active, body.config);
        // Public requests in every process see the new state from now on.
        await platform.bots.changed(bot.id);
        return ok(channel);
      },
      {
        user: true,
        params: BotIdParams,
        body: ChannelPatch,
        response: { 200: Ok(Channel), ...errors(400, 401, 403, 404) },
        detail: { summary: "Enable, disable or configure one channel" },
      },
    );
