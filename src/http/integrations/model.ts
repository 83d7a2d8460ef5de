import { t } from "elysia";
import { API_TOKEN_SCOPES, EVENT_WEBHOOK_EVENTS } from "../../core/integrations.ts";
import { MAX_URL_LENGTH } from "../../core/limits.ts";
import { MAX_TOKEN_NAME_LENGTH } from "../../domain/api_tokens.ts";

const EventName = t.Union(
  [t.Literal("conversation_created"), t.Literal("conversation_updated"), t.Literal("message_created"), t.Literal("contact_updated")],
  { description: "An event the hook follows" },
);
const Scope = t.Union([t.Literal("inbox:read"), t.Literal("inbox:write"), t.Literal("bots:admin")], { description: "What the token may do" });
const Time = t.String({ format: "date-time" });
const NullableTime = t.Union([Time, t.Null()]);

export const HookPath = t.Object({ id: t.String({ description: "The bot's id" }), hook_id: t.String({ description: "The event webhook's id" }) });
export const RedeliverPath = t.Object({ id: t.String(), hook_id: t.String(), delivery_id: t.String({ description: "A delivery's id from the log" }) });

export const CreateEventWebhookRequest = t.Object({
  url: t.String({ minLength: 1, maxLength: MAX_URL_LENGTH, description: "http(s) URL on a public address", examples: ["https://crm.example.com/botinbox"] }),
  events: t.Array(EventName, { minItems: 1, maxItems: EVENT_WEBHOOK_EVENTS.length, examples: [["conversation_created", "message_created"]] }),
}, { examples: [{ url: "https://crm.example.com/botinbox", events: ["conversation_created", "message_created"] }] });

const HOOK_EXAMPLE = { id: "4b0c1d2e-3f40-4a5b-8c6d-7e8f9a0b1c2d", url: "https://crm.example.com/botinbox", events: ["message_created"], created_at: "2026-11-24T10:00:00.000Z" };
export const EventWebhook = t.Object({
  id: t.String(),
  url: t.String(),
  events: t.Array(EventName),
  created_at: Time,
}, { title: "EventWebhook", examples: [HOOK_EXAMPLE] });

export const CreatedEventWebhook = t.Composite([EventWebhook, t.Object({
  secret: t.String({ description: "Signs every delivery (X-Botinbox-Signature); shown only now" }),
})], { title: "CreatedEventWebhook", examples: [{ ...HOOK_EXAMPLE, secret: "whsec_q3J9x0kF2m7Yt5VhR8sWcL1nB4dZ6aEe" }] });

export const EventDelivery = t.Object({
  id: t.String(),
  event: EventName,
  event_id: t.String({ description: "The body's id; the same event sent again keeps it" }),
  state: t.Union([t.Literal("pending"), t.Literal("delivered"), t.Literal("failed")]),
  attempts: t.Integer(),
  response_code: t.Union([t.Integer(), t.Null()], { description: "The receiver's last HTTP status; null before any answer" }),
  last_error: t.Union([t.String(), t.Null()]),
  created_at: Time,
  last_attempt_at: NullableTime,
  next_attempt_at: t.Union([Time, t.Null()], { description: "While pending: when the next attempt is due" }),
  finished_at: NullableTime,
}, {
  title: "EventDelivery",
  examples: [{
    id: "6a7b8c9d-0e1f-4a2b-8c3d-4e5f6a7b8c9d", event: "message_created", event_id: "evt_1f2e3d4c5b6a79880716253443526170", state: "delivered",
    attempts: 2, response_code: 200, last_error: null, created_at: "2026-11-24T10:00:00.000Z", last_attempt_at: "2026-11-24T10:00:00.000Z", next_attempt_at: null, finished_at: "2026-11-24T10:00:00.000Z",
  }],
});

export const CreateApiTokenRequest = t.Object({
  name: t.String({ minLength: 1, maxLength: MAX_TOKEN_NAME_LENGTH, examples: ["CRM sync"] }),
  scopes: t.Array(Scope, { minItems: 1, maxItems: API_TOKEN_SCOPES.length, examples: [["inbox:read"]] }),
  expires_at: t.Optional(t.String({ format: "date-time", description: "A future ISO 8601 time; without it the token lasts until revoked" })),
}, { examples: [{ name: "CRM sync", scopes: ["inbox:read"], expires_at: "2027-11-24T00:00:00.000Z" }] });

const TOKEN_EXAMPLE = {
  id: "8c9d0e1f-2a3b-4c4d-8e5f-6a7b8c9d0e1f", name: "CRM sync", scopes: ["inbox:read"], expires_at: null, last_used_at: null, created_at: "2026-11-24T10:00:00.000Z",
};
export const ApiToken = t.Object({
  id: t.String(),
  name: t.String(),
  scopes: t.Array(Scope),
  expires_at: NullableTime,
  last_used_at: t.Union([Time, t.Null()], { description: "Updated at most once a minute" }),
  created_at: Time,
}, { title: "ApiToken", examples: [TOKEN_EXAMPLE] });

export const CreatedApiToken = t.Composite([ApiToken, t.Object({
  token: t.String({ description: "bi_pat_…; send as Authorization: Bearer. Shown only now" }),
})], { title: "CreatedApiToken", examples: [{ ...TOKEN_EXAMPLE, token: "bi_pat_Zx8kQ2mN5vR7tY1wB3cD6fG9hJ0kL4pS8uV2xA5yC7e" }] });

export const TokenIdPath = t.Object({ id: t.String({ description: "The token's id" }) });
