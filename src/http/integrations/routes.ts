import { t } from "elysia";
import type { Services } from "../../services.ts";
import { userAuth } from "../auth/plugin.ts";
import { errors, Ok, ok, withExample } from "../envelope.ts";
import { feature } from "../feature.ts";
import { BotIdPath } from "../runtime/model.ts";
import { DeliveriesQuery, DELIVERIES_DEFAULT_LIMIT, DELIVERIES_MAX_LIMIT } from "../webhooks/model.ts";
import {
  ApiToken, CreateApiTokenRequest, CreatedApiToken, CreatedEventWebhook, CreateEventWebhookRequest, EventDelivery, EventWebhook,
  HookPath, RedeliverPath, TokenIdPath,
} from "./model.ts";

const clampLimit = (limit: number | undefined) => Math.min(DELIVERIES_MAX_LIMIT, Math.max(1, limit ?? DELIVERIES_DEFAULT_LIMIT));
const notOwner = { 404: "The caller is not a member of a bot with this id, or no such hook" };
const SIGNING =
  "Each event is POSTed as `{event, id, created_at, data}` with `X-Botinbox-Signature: t=<unix>,v1=<hex HMAC-SHA256(secret, \"<t>.<body>\")>`; " +
  "a 2xx answer confirms it, anything else is retried with backoff for 24 h, in order per conversation. Private notes are never sent.";

const eventWebhookRoutes = (services: Services) =>
  feature({ prefix: "/api/bots/:id/event-webhooks", tags: ["Integrations"] })
    .use(userAuth(services))
    .post(
      "",
      async ({ user, params, body, set }) => {
        const created = await services.eventWebhooks.create(user, params.id, body);
        set.status = 201;
        return ok(created);
      },
      {
        user: true,
        params: BotIdPath,
        body: CreateEventWebhookRequest,
        response: { 201: Ok(CreatedEventWebhook, "The hook, with its signing secret (shown only now)"), ...errors(400, 401, 403, 409, notOwner) },
        detail: { summary: "Follow the bot's conversations, messages and contacts at a URL (owner)", description: SIGNING },
      },
    )
    .get("", async ({ user, params }) => ok(await services.eventWebhooks.list(user, params.id)), {
      user: true,
      params: BotIdPath,
      response: { 200: Ok(t.Array(EventWebhook), "The bot's event webhooks, without secrets"), ...errors(400, 401, 403, notOwner) },
      detail: { summary: "The bot's event webhooks (owner)", description: "Secrets are shown only when a hook is created." },
    })
    .delete("/:hook_id", async ({ user, params }) => ok(await services.eventWebhooks.remove(user, params.id, params.hook_id)), {
      user: true,
      params: HookPath,
      response: { 200: Ok(withExample(t.Literal(true), true), "The hook and its queued deliveries are gone"), ...errors(400, 401, 403, notOwner) },
      detail: { summary: "Remove an event webhook (owner)", description: "Nothing more is sent to it, queued events included." },
    })
    .get(
      "/:hook_id/deliveries",
      async ({ user, params, query }) => ok(await services.eventWebhooks.deliveries(user, params.id, params.hook_id, clampLimit(query.limit))),
      {
        user: true,
        params: HookPath,
        query: DeliveriesQuery,
        response: { 200: Ok(t.Array(EventDelivery), "Up to limit deliveries, newest first"), ...errors(400, 401, 403, notOwner) },
        detail: { summary: "The hook's delivery log (owner)", description: "State, attempts, the receiver's last status code and error, and times of each event sent to the hook." },
      },
    )
    .post(
      "/:hook_id/deliveries/:delivery_id/redeliver",
      async ({ user, params }) => ok(await services.eventWebhooks.redeliver(user, params.id, params.hook_id, params.delivery_id)),
      {
        user: true,
        params: RedeliverPath,
        response: { 200: Ok(EventDelivery, "Queued again; sent with the same body and event id, freshly signed"), ...errors(400, 401, 403, notOwner) },
        detail: { summary: "Send a delivery again (owner)", description: "Delivered or failed alike; it keeps its place in its conversation's order." },
      },
    );

const apiTokenRoutes = (services: Services) =>
  feature({ prefix: "/api/me/tokens", tags: ["Integrations"] })
    .use(userAuth(services))
    .post(
      "",
      async ({ user, body, set }) => {
        const created = await services.tokens.create(user, body);
        set.status = 201;
        return ok(created);
      },
      {
        user: true,
        body: CreateApiTokenRequest,
        response: { 201: Ok(CreatedApiToken, "The token (shown only now) and its settings"), ...errors(400, 401, 403, 409) },
        detail: {
          summary: "Create a personal API token",
          description: "A long-lived Bearer for scripts and integrations on user-token endpoints: inbox:read (GET /api/inbox…, GET /api/bots), " +
            "inbox:write (other /api/inbox… calls), bots:admin (/api/bots…). Outside its scopes: 403; expired or revoked: 401. " +
            "Tokens cannot manage tokens, sessions or passwords.",
        },
      },
    )
    .get("", async ({ user }) => ok(await services.tokens.list(user)), {
      user: true,
      response: { 200: Ok(t.Array(ApiToken), "The user's tokens that are not revoked, newest first"), ...errors(401, 403) },
      detail: { summary: "Your personal API tokens, with last use", description: "The tokens themselves are never shown again." },
    })
    .delete("/:id", async ({ user, params }) => ok(await services.tokens.revoke(user, params.id)), {
      user: true,
      params: TokenIdPath,
      response: { 200: Ok(withExample(t.Literal(true), true), "Revoked: it stops working at once"), ...errors(400, 401, 403, { 404: "No live token of the user with this id" }) },
      detail: { summary: "Revoke a personal API token", description: "Every request with it answers 401 from now on; streams it opened end." },
    });

export const integrationRoutes = (services: Services) => feature().use(eventWebhookRoutes(services)).use(apiTokenRoutes(services));
