import { t } from "elysia";
import type { Platform } from "../../platform.ts";
import { userAuth } from "../auth/plugin.ts";
import { requireMember } from "../../domain/members.ts";
import { errors, Ok, ok } from "../envelope.ts";
import { feature } from "../feature.ts";
import { BotIdPath } from "../runtime/model.ts";
import { botAuth } from "../runtime/plugin.ts";
import { deleteWebhook, getWebhookInfo, listCallbackStates, listDeliveries, setWebhook } from "../../domain/webhooks.ts";
import {
  CallbackDelivery, DeleteWebhookRequest, DeliveriesQuery, DeliveryAttempt, DELIVERIES_DEFAULT_LIMIT, DELIVERIES_MAX_LIMIT,
  SetWebhookRequest, WebhookInfo,
} from "./model.ts";

const clampLimit = (limit: number | undefined) => Math.min(DELIVERIES_MAX_LIMIT, Math.max(1, limit ?? DELIVERIES_DEFAULT_LIMIT));

/** Bot-token endpoints: set, inspect and delete the webhook. */
const runtimeWebhookRoutes = (platform: Platform) =>
  feature({ tags: ["Bot Runtime"] })
    .use(botAuth(platform))
    .post("/api/bots/:id/set-webhook", async ({ bot, body }) => ok(await setWebhook(platform, bot, body)), {
      bot: true,
      params: BotIdPath,
      body: SetWebhookRequest,
      response: { 200: Ok(t.Literal(true)), ...errors(400, 401, 403) },
      detail: { summary: "Deliver updates to a URL instead of get-updates (ends a parked poll with 409)" },
    })
    .get("/api/bots/:id/get-webhook-info", async ({ bot }) => ok(await getWebhookInfo(platform, bot)), {
      bot: true,
      params: BotIdPath,
      response: { 200: Ok(WebhookInfo), ...errors(400, 401, 403) },
      detail: { summary: "The webhook, its pending updates and its last error" },
    })
    .post(
      "/api/bots/:id/delete-webhook",
      async ({ bot, body, query }) => ok(await deleteWebhook(platform, bot, body?.drop_pending_updates ?? query.drop_pending_updates)),
      {
        bot: true,
        params: BotIdPath,
        body: t.Optional(DeleteWebhookRequest),
        query: DeleteWebhookRequest,
        response: { 200: Ok(t.Literal(true)), ...errors(400, 401, 403) },
        detail: { summary: "Remove the webhook; the bot goes back to get-updates" },
      },
    );

/** The cabinet's view of deliveries (user token). */
const deliveryLogRoutes = (platform: Platform) =>
  feature({ tags: ["Bots"] })
    .use(userAuth(platform))
    .get(
      "/api/bots/:id/deliveries",
      async ({ user, params, query }) => {
        const bot = await requireMember(platform.db, user.id, params.id, "owner");
        return ok(await listDeliveries(platform.db, bot.id, clampLimit(query.limit)));
      },
      {
        user: true,
        params: BotIdPath,
        query: DeliveriesQuery,
        response: { 200: Ok(t.Array(DeliveryAttempt)), ...errors(400, 401, 403, 404) },
        detail: { summary: "Recent webhook and callback delivery attempts, newest first" },
      },
    )
    .get(
      "/api/bots/:id/callback-deliveries",
      async ({ user, params, query }) => {
        const bot = await requireMember(platform.db, user.id, params.id, "owner");
        return ok(await listCallbackStates(platform.db, bot.id, clampLimit(query.limit)));
      },
      {
        user: true,
        params: BotIdPath,
        query: DeliveriesQuery,
        response: { 200: Ok(t.Array(CallbackDelivery)), ...errors(400, 401, 403, 404) },
        detail: { summary: "Delivery state of outgoing messages to channel callbacks, newest first" },
      },
    );

export const webhookRoutes = (platform: Platform) => feature().use(runtimeWebhookRoutes(platform)).use(deliveryLogRoutes(platform));
