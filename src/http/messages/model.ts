import { Attachments } from "../files/model.ts";
import { t } from "elysia";
import {
  HISTORY_DEFAULT_LIMIT, HISTORY_MAX_LIMIT,
  type AcceptedMessage as AcceptedRecord, type HistoryQuery as HistoryInput, type IncomingMessage,
} from "../../domain/intake.ts";
import type { Same } from "../../core/records.ts";
import { MAX_DATE_MS, SafeInt } from "../input.ts";
import { CHANNEL_TYPES } from "../channels/model.ts";
import { oneOf } from "../feature.ts";
import { MAX_TEXT_LENGTH } from "../inbox/model.ts";
import { MAX_CALLBACK_DATA_BYTES } from "../../core/limits.ts";
import type { ButtonPress } from "../../domain/buttons.ts";

/** Ids from outside systems: long enough for any UUID/URN, short enough to index. */
export const MAX_EXTERNAL_ID_LENGTH = 256;
/** RFC 5321's longest address. */
const MAX_EMAIL_LENGTH = 254;
/** Person names as Telegram allows them. */
export const MAX_NAME_LENGTH = 256;
export { HISTORY_DEFAULT_LIMIT, HISTORY_MAX_LIMIT };
/** Idempotency keys are client-made ids; anything longer is not an id. */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 256;

const ExternalId = t.String({ minLength: 1, maxLength: MAX_EXTERNAL_ID_LENGTH });
/** Longer than any hex SHA-256 HMAC; the domain tells a wrong one apart (401), whatever its shape. */
const MAX_USER_HASH_LENGTH = 128;
/** A verified widget user (domain/identity.ts): the site's server signs the user id with the bot's identity secret. */
export const UserHash = t.String({
  minLength: 1, maxLength: MAX_USER_HASH_LENGTH,
  description: "hex HMAC-SHA256(the bot's identity secret, user id), computed by your server: the chat becomes that user's one conversation (chat_id `verified:<user id>`) on every device; a wrong hash is 401",
});
/** The fields a call naming a chat adds to reach a verified user's chat. */
export const IdentityFields = {
  user_id: t.Optional(t.String({ minLength: 1, maxLength: MAX_EXTERNAL_ID_LENGTH, description: "With user_hash: the verified user whose chat this is" })),
  user_hash: t.Optional(UserHash),
};

export const IncomingMessageRequest = t.Object(
  {
    text: t.String({ maxLength: MAX_TEXT_LENGTH, description: "May be empty when attachments are given" }),
    attachments: t.Optional(Attachments),
    bot_id: t.Optional(t.String({ format: "uuid" })),
    widget_key: t.Optional(t.String({ minLength: 1, maxLength: MAX_EXTERNAL_ID_LENGTH })),
    chat_id: t.Optional(ExternalId),
    user_id: t.Optional(ExternalId),
    timestamp: t.Optional(t.Integer({ minimum: 0, maximum: MAX_DATE_MS, description: "Unix seconds, or milliseconds when > 10^12; default now" })),
    channel: t.Optional(oneOf(CHANNEL_TYPES)),
    external_chat_id: t.Optional(ExternalId),
    external_user_id: t.Optional(ExternalId),
    user: t.Optional(
      t.Object({
        id: t.Optional(ExternalId),
        first_name: t.Optional(t.String({ maxLength: MAX_NAME_LENGTH })),
        last_name: t.Optional(t.String({ maxLength: MAX_NAME_LENGTH })),
        name: t.Optional(t.String({ maxLength: MAX_NAME_LENGTH, description: "The full name, as a site knows it" })),
        email: t.Optional(t.String({ maxLength: MAX_EMAIL_LENGTH, description: "Kept on the contact for a verified user (user_hash) only" })),
      }),
    ),
    user_hash: t.Optional(UserHash),
    metadata: t.Optional(
      t.Record(t.String(), t.Unknown(), {
        description: "Free-form; page_url and page_title are used by site senders; client_message_id makes the request idempotent",
      }),
    ),
  },
  { title: "IncomingMessageRequest", examples: [{"bot_id": "6f1c2d8e-3b4a-4c5d-9e8f-0a1b2c3d4e5f", "chat_id": "visitor-42", "text": "Hello, is anyone there?", "user": {"first_name": "Ada"}, "metadata": {"client_message_id": "m-0001", "page_url": "https://shop.example.com/pricing"}}] },
);
export type IncomingMessageRequest = typeof IncomingMessageRequest.static;

export const AcceptedMessage = t.Object(
  {
    id: t.String({ format: "uuid" }),
    message_id: t.String(),
    conversation_id: t.String({ format: "uuid" }),
    chat_id: t.String(),
    created_at: t.String({ format: "date-time" }),
  },
  { title: "AcceptedMessage", examples: [{"id": "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f", "message_id": "17", "conversation_id": "9a8b7c6d-5e4f-4a3b-9c2d-1e0f2a3b4c5d", "chat_id": "visitor-42", "created_at": "2026-01-01T09:30:00.000Z"}] },
);
export type AcceptedMessage = typeof AcceptedMessage.static;

export const HistoryQuery = t.Object({
  chat_id: ExternalId,
  bot_id: t.Optional(t.String({ format: "uuid" })),
  widget_key: t.Optional(t.String({ minLength: 1, maxLength: MAX_EXTERNAL_ID_LENGTH })),
  channel: t.Optional(oneOf(CHANNEL_TYPES)),
  limit: t.Optional(SafeInt({ minimum: 1, description: `Default ${HISTORY_DEFAULT_LIMIT}, clamped to ${HISTORY_MAX_LIMIT}` })),
  before: t.Optional(SafeInt({ minimum: 1, description: "message_id: older messages than this" })),
  ...IdentityFields,
});
export type HistoryQuery = typeof HistoryQuery.static;

export const IdempotencyHeaders = t.Object({
  "idempotency-key": t.Optional(t.String({ minLength: 1, maxLength: MAX_IDEMPOTENCY_KEY_LENGTH })),
});

// What the routes validate must stay what the domain takes and answers (plain TS types there).
const sameAsDomain: [
  IncomingMessageRequest extends IncomingMessage ? true : false, HistoryQuery extends HistoryInput ? true : false,
  Same<AcceptedMessage, AcceptedRecord>,
] = [true, true, true];
void sameAsDomain;

export const ButtonPressRequest = t.Object(
  {
    bot_id: t.Optional(t.String({ format: "uuid" })),
    widget_key: t.Optional(t.String({ minLength: 1, maxLength: MAX_EXTERNAL_ID_LENGTH })),
    chat_id: ExternalId,
    message_id: t.String({ pattern: "^[0-9]{1,15}$", description: "The bot's message the button is under" }),
    data: t.String({ minLength: 1, maxLength: MAX_CALLBACK_DATA_BYTES, description: "The button's callback_data" }),
    ...IdentityFields,
  },
  { title: "ButtonPressRequest", examples: [{ widget_key: "wk_4f1c0d…", chat_id: "w_0b5e6c1e", message_id: "42", data: "pricing" }] },
);

export const ButtonPressResult = t.Object(
  { callback_query_id: t.String({ description: "Matches the callback_answer event the bot's answer produces" }) },
  { title: "ButtonPressResult", examples: [{ callback_query_id: "5f0c2b9d8e3a4f7c9b1d2e3f4a5b6c7d" }] },
);

// What the route validates must stay what the domain takes.
const pressAccepted: typeof ButtonPressRequest.static extends ButtonPress ? true : false = true;
void pressAccepted;
