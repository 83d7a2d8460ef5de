import { t } from "elysia";
import type { Services } from "../../services.ts";
import { userAuth } from "../auth/plugin.ts";
import { errors, Ok, ok, withExample } from "../envelope.ts";
import { feature } from "../feature.ts";
import { BotIdPath } from "../runtime/model.ts";
import { botAuth } from "../runtime/plugin.ts";
import {
  CallbackDelivery, DeleteWebhookRequest, DeliveriesQuery, DeliveryAttempt, DELIVERIES_DEFAULT_LIMIT, DELIVERIES_MAX_LIMIT,
  SetWebhookRequest, WebhookInfo,
} from "./model.ts";

const clampLimit = (limit: number | undefined) => Math.min(DELIVERIES_MAX_LIMIT, Math.max(1, limit ?? DELIVERIES_DEFAULT_LIMIT));

/** Bot-token endpoints: set, inspect and delete the webhook. */
const runtimeWebhookRoutes = (services: Services) =>
  feature({ tags: ["Bot Runtime"] })
    .use(botAuth(services))
    .post("/api/bots/:id/set-webhook", async ({ bot, body }) => ok(await services.webhooks.set(bot, body)), {
      bot: true,
      params: BotIdPath,
      body: SetWebhookRequest,
      response: { 200: Ok(withExample(t.Literal(true), true), "The webhook is set; deliveries start with the oldest pending update"), ...errors(400, 401, 403) },
      detail: {
        summary: "Deliver updates to a URL instead of get-updates (ends a parked poll with 409)",
        description: "Each update is POSTed as JSON; a 2xx answer confirms it, anything else (or no answer in 10 s) is retried with backoff, in order per chat, " +
          "max_connections chats at a time. While a webhook is set, get-updates answers 409. The bot's id goes in the path, its token in Authorization.",
      },
    })
    .get("/api/bots/:id/get-webhook-info", async ({ bot }) => ok(await services.webhooks.info(bot)), {
      bot: true,
      params: BotIdPath,
      response: { 200: Ok(WebhookInfo, "The webhook settings, pending_update_count and the last failure"), ...errors(400, 401, 403) },
      detail: { summary: "The webhook, its pending updates and its last error", description: "url is empty when no webhook is set; last_error_date is in Unix seconds." },
    })
    .post(
      "/api/bots/:id/delete-webhook",
      async ({ bot, body, query }) => ok(await services.webhooks.remove(bot, body?.drop_pending_updates ?? query.drop_pending_updates)),
      {
        bot: true,
        params: BotIdPath,
        body: t.Optional(DeleteWebhookRequest),
        query: DeleteWebhookRequest,
        response: { 200: Ok(withExample(t.Literal(true), true), "The webhook is removed"), ...errors(400, 401, 403) },
        detail: { summary: "Remove the webhook; the bot goes back to get-updates", description: "Pending updates stay for get-updates unless drop_pending_updates is true." },
      },
    );

/** The cabinet's view of deliveries (user token). */
const deliveryLogRoutes = (services: Services) =>
  feature({ tags: ["Bots"] })
    .use(userAuth(services))
    .get(
      "/api/bots/:id/deliveries",
      async ({ user, params, query }) => {
        return ok(await services.webhooks.deliveries(user, params.id, clampLimit(query.limit)));
      },
      {
        user: true,
        params: BotIdPath,
        query: DeliveriesQuery,
        response: { 200: Ok(t.Array(DeliveryAttempt), "Up to limit attempts of the last week, newest first"), ...errors(400, 401, 403, { 404: "The caller is not a member of a bot with this id" }) },
        detail: { summary: "Recent webhook and callback delivery attempts, newest first", description: "For the cabinet: status code, latency in milliseconds and error of each request made to the bot's URLs." },
      },
    )
    .get(
      "/api/bots/:id/callback-deliveries",
      async ({ user, params, query }) => {
        return ok(await services.webhooks.callbacks(user, params.id, clampLimit(query.limit)));
      },
      {
        user: true,
        params: BotIdPath,
        query: DeliveriesQuery,
        response: { 200: Ok(t.Array(CallbackDelivery), "Up to limit outgoing messages with their delivery state"), ...errors(400, 401, 403, { 404: "The caller is not a member of a bot with this id" }) },
        detail: { summary: "Delivery state of outgoing messages to channel callbacks, newest first", description: "pending: still being retried (next_attempt_at); delivered: the callback answered 2xx; failed: given up." },
      },
    );

export const webhookRoutes = (services: Services) => feature().use(runtimeWebhookRoutes(services)).use(deliveryLogRoutes(services));
