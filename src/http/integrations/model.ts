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
});

export const EventWebhook = t.Object({
  id: t.String(),
  url: t.String(),
  events: t.Array(EventName),
  created_at: Time,
});

export const CreatedEventWebhook = t.Composite([EventWebhook, t.Object({
  secret: t.String({ description: "Signs every delivery (X-Botinbox-Signature); shown only now" }),
})]);

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
});

export const CreateApiTokenRequest = t.Object({
  name: t.String({ minLength: 1, maxLength: MAX_TOKEN_NAME_LENGTH, examples: ["CRM sync"] }),
  scopes: t.Array(Scope, { minItems: 1, maxItems: API_TOKEN_SCOPES.length, examples: [["inbox:read"]] }),
  expires_at: t.Optional(t.String({ format: "date-time", description: "A future ISO 8601 time; without it the token lasts until revoked" })),
});

export const ApiToken = t.Object({
  id: t.String(),
  name: t.String(),
  scopes: t.Array(Scope),
  expires_at: NullableTime,
  last_used_at: t.Union([Time, t.Null()], { description: "Updated at most once a minute" }),
  created_at: Time,
});

export const CreatedApiToken = t.Composite([ApiToken, t.Object({
  token: t.String({ description: "bi_pat_…; send as Authorization: Bearer. Shown only now" }),
})]);

export const TokenIdPath = t.Object({ id: t.String({ description: "The token's id" }) });
