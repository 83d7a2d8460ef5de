import { t } from "elysia";
import { SafeInt } from "../input.ts";
import { MAX_URL_LENGTH } from "../bots/model.ts";
import { oneOf } from "../feature.ts";
import { DEFAULT_MAX_CONNECTIONS, MAX_MAX_CONNECTIONS, SECRET_TOKEN_PATTERN } from "../../domain/webhooks.ts";
import { UPDATE_KINDS } from "../../core/updates.ts";

/** Why: the delivery log answers "what happened lately", not an export; a page of this is plenty. */
export const DELIVERIES_DEFAULT_LIMIT = 50;
export const DELIVERIES_MAX_LIMIT = 200;

export const SetWebhookRequest = t.Object(
  {
    url: t.String({
      maxLength: MAX_URL_LENGTH,
      pattern: "^[Hh][Tt][Tt][Pp][Ss]?://",
      description: "http(s) URL; private, loopback and link-local addresses are refused unless ALLOW_PRIVATE_WEBHOOKS=1",
    }),
    secret_token: t.Optional(t.String({
      pattern: SECRET_TOKEN_PATTERN,
      description: "Sent back in X-Bot-Api-Secret-Token (and X-Telegram-Bot-Api-Secret-Token) with every delivery",
    })),
    max_connections: t.Optional(t.Integer({
      minimum: 1, maximum: MAX_MAX_CONNECTIONS, description: `Chats delivered in parallel, default ${DEFAULT_MAX_CONNECTIONS}`,
    })),
    allowed_updates: t.Optional(t.Array(oneOf(UPDATE_KINDS), {
      maxItems: UPDATE_KINDS.length * 2, description: "Kinds of update to deliver; omitted keeps the previous setting (all at first)",
    })),
    drop_pending_updates: t.Optional(t.Boolean({ description: "Forget the updates waiting now" })),
  },
  { title: "SetWebhookRequest", examples: [{"url": "https://bot.example.com/hook", "secret_token": "my-secret_123", "max_connections": 40, "allowed_updates": ["message", "operator_message"]}] },
);
export type SetWebhookRequest = typeof SetWebhookRequest.static;

export const DeleteWebhookRequest = t.Object(
  { drop_pending_updates: t.Optional(t.Boolean({ description: "Forget the updates waiting now" })) },
  { title: "DeleteWebhookRequest", examples: [{"drop_pending_updates": false}] },
);

export const WebhookInfo = t.Object(
  {
    url: t.String({ description: "Empty when no webhook is set" }),
    has_custom_certificate: t.Literal(false),
    pending_update_count: t.Integer(),
    last_error_date: t.Optional(t.Integer({ description: "Unix seconds of the last failed delivery" })),
    last_error_message: t.Optional(t.String()),
    max_connections: t.Integer(),
    allowed_updates: t.Optional(t.Array(oneOf(UPDATE_KINDS))),
  },
  { title: "WebhookInfo", examples: [{"url": "https://bot.example.com/hook", "has_custom_certificate": false, "pending_update_count": 2, "last_error_date": 1767225600, "last_error_message": "HTTP 502", "max_connections": 40, "allowed_updates": ["message", "operator_message"]}] },
);

export const DeliveriesQuery = t.Object({
  limit: t.Optional(SafeInt({ description: `1..${DELIVERIES_MAX_LIMIT} (clamped), default ${DELIVERIES_DEFAULT_LIMIT}` })),
});

export const DeliveryAttempt = t.Object(
  {
    id: t.Integer(),
    kind: oneOf(["webhook", "callback"]),
    update_id: t.Union([t.Integer(), t.Null()]),
    message_id: t.Union([t.String({ format: "uuid" }), t.Null()]),
    url: t.String(),
    status_code: t.Union([t.Integer(), t.Null()]),
    latency_ms: t.Integer(),
    error: t.Union([t.String(), t.Null()]),
    attempted_at: t.String({ format: "date-time" }),
  },
  { title: "DeliveryAttempt", examples: [{"id": 981, "kind": "webhook", "update_id": 1001, "message_id": null, "url": "https://bot.example.com/hook", "status_code": 200, "latency_ms": 84, "error": null, "attempted_at": "2026-01-01T09:30:00.000Z"}] },
);

export const CallbackDelivery = t.Object(
  {
    message_id: t.String({ format: "uuid" }),
    conversation_id: t.String({ format: "uuid" }),
    state: oneOf(["pending", "delivered", "failed"]),
    attempts: t.Integer(),
    last_status: t.Union([t.Integer(), t.Null()]),
    last_error: t.Union([t.String(), t.Null()]),
    next_attempt_at: t.Union([t.String({ format: "date-time" }), t.Null()]),
    created_at: t.String({ format: "date-time" }),
    finished_at: t.Union([t.String({ format: "date-time" }), t.Null()]),
  },
  { title: "CallbackDelivery", examples: [{"message_id": "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f", "conversation_id": "9a8b7c6d-5e4f-4a3b-9c2d-1e0f2a3b4c5d", "state": "delivered", "attempts": 1, "last_status": 200, "last_error": null, "next_attempt_at": null, "created_at": "2026-01-01T09:30:00.000Z", "finished_at": "2026-01-01T09:30:00.000Z"}] },
);
