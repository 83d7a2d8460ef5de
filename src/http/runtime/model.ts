import { t } from "elysia";
import { SafeInt } from "../input.ts";
import { MAX_TEXT_LENGTH } from "../inbox/model.ts";

import {
  MAX_COMMAND_DESCRIPTION_LENGTH, MAX_COMMANDS, MAX_REPLY_MARKUP_BYTES, POLL_DEFAULT_TIMEOUT_SECONDS, POLL_MAX_TIMEOUT_SECONDS,
  UPDATES_DEFAULT_LIMIT, UPDATES_MAX_LIMIT,
  type EditMessageTextRequest as EditInput, type GetUpdatesQuery as PollInput, type SendMessageRequest as SendInput,
} from "../../domain/runtime.ts";
import type { CallbackAnswer } from "../../domain/buttons.ts";
import type { RuntimeMessage as RuntimeMessageShape } from "../../core/updates.ts";
import type { Same } from "../../core/records.ts";
import { MAX_CALLBACK_ANSWER_LENGTH, MAX_ENTITIES, MAX_URL_LENGTH } from "../../core/limits.ts";
import { MessageEntity } from "./entities.ts";

export {
  MAX_COMMAND_DESCRIPTION_LENGTH, MAX_COMMANDS, MAX_REPLY_MARKUP_BYTES, POLL_DEFAULT_TIMEOUT_SECONDS, POLL_MAX_TIMEOUT_SECONDS,
  UPDATES_DEFAULT_LIMIT, UPDATES_MAX_LIMIT,
};

export const BotIdPath = t.Object({ id: t.String({ format: "uuid", description: "Bot UUID" }) });

export const GetUpdatesQuery = t.Object({
  offset: t.Optional(SafeInt({ description: "Confirms every update below it; negative: the last |offset|" })),
  limit: t.Optional(SafeInt({ description: `1..${UPDATES_MAX_LIMIT} (clamped), default ${UPDATES_DEFAULT_LIMIT}` })),
  timeout: t.Optional(SafeInt({ description: `Long-poll seconds, 0..${POLL_MAX_TIMEOUT_SECONDS} (clamped), default ${POLL_DEFAULT_TIMEOUT_SECONDS}` })),
});
export type GetUpdatesQuery = typeof GetUpdatesQuery.static;

const Json = t.Record(t.String(), t.Unknown());

export const RuntimeMessage = t.Object(
  {
    message_id: t.String(),
    date: t.Integer({ description: "Unix seconds" }),
    chat: t.Object({ id: t.String(), type: t.Literal("private"), channel: t.String() }),
    from: t.Object({
      id: t.String(),
      first_name: t.Union([t.String(), t.Null()]),
      last_name: t.Union([t.String(), t.Null()]),
      is_bot: t.Optional(t.Boolean()),
      username: t.Optional(t.String()),
    }),
    text: t.String(),
    entities: t.Optional(t.Array(MessageEntity)),
    metadata: t.Optional(Json),
    form: t.Optional(Json),
    reply_markup: t.Optional(Json),
    edit_date: t.Optional(t.Integer()),
  },
  { title: "RuntimeMessage" },
);

export const CallbackQuery = t.Object(
  {
    id: t.String({ description: "Answer it with answer-callback-query" }),
    from: t.Object({ id: t.String(), first_name: t.Union([t.String(), t.Null()]), last_name: t.Union([t.String(), t.Null()]) }),
    message: RuntimeMessage,
    chat_instance: t.String(),
    data: t.String({ description: "The pressed button's callback_data" }),
  },
  { title: "CallbackQuery", description: "A visitor pressed an inline button under one of the bot's messages" },
);

export const Update = t.Object(
  {
    update_id: t.Integer(),
    message: t.Optional(RuntimeMessage),
    edited_message: t.Optional(RuntimeMessage),
    operator_message: t.Optional(RuntimeMessage),
    callback_query: t.Optional(CallbackQuery),
  },
  { title: "Update" },
);

const Formatting = {
  parse_mode: t.Optional(t.String({ maxLength: 16, description: "HTML, MarkdownV2 or Markdown (Telegram's syntax); ignored when entities are given" })),
  entities: t.Optional(t.Array(MessageEntity, { maxItems: MAX_ENTITIES, description: "Formatting of text as Telegram's MessageEntity list" })),
};

const MessageIdField = t.Union([t.String({ pattern: "^[0-9]{1,15}$" }), SafeInt({ minimum: 1 })], {
  description: "message_id of a message this bot sent",
});

export const SendMessageRequest = t.Object(
  {
    chat_id: t.String({ minLength: 1, maxLength: 256 }),
    text: t.String({ minLength: 1, maxLength: MAX_TEXT_LENGTH }),
    channel: t.Optional(t.String({ maxLength: 64, description: "Informational; the reply goes to the chat's channel" })),
    ...Formatting,
    reply_markup: t.Optional(Json),
    reply_to_message_id: t.Optional(t.Union([t.String({ pattern: "^[0-9]{1,15}$" }), SafeInt({ minimum: 1 })], {
      description: "A message of this chat the new one answers (kept as metadata.reply_to_message_id)",
    })),
    allow_sending_without_reply: t.Optional(t.Boolean({ description: "Send even when reply_to_message_id is not found" })),
  },
  {
    title: "SendMessageRequest",
    examples: [{
      chat_id: "w_0b5e6c1e", text: "<b>Hello!</b> What can we do for you?", parse_mode: "HTML",
      reply_markup: { inline_keyboard: [[{ text: "Pricing", callback_data: "pricing" }, { text: "Docs", url: "https://example.com/docs" }]] },
    }],
  },
);
export type SendMessageRequest = typeof SendMessageRequest.static;

export const EditMessageTextRequest = t.Object(
  { message_id: MessageIdField, text: t.String({ minLength: 1, maxLength: MAX_TEXT_LENGTH }), ...Formatting, reply_markup: t.Optional(Json) },
  { title: "EditMessageTextRequest" },
);

export const EditMessageReplyMarkupRequest = t.Object(
  { message_id: MessageIdField, reply_markup: t.Optional(Json) },
  {
    title: "EditMessageReplyMarkupRequest",
    description: "Without reply_markup the keyboard is removed",
    examples: [{ message_id: "42", reply_markup: { inline_keyboard: [[{ text: "✓ Pricing", callback_data: "pricing" }]] } }],
  },
);

export const AnswerCallbackQueryRequest = t.Object(
  {
    callback_query_id: t.String({ minLength: 1, maxLength: 64 }),
    text: t.Optional(t.String({ maxLength: MAX_CALLBACK_ANSWER_LENGTH, description: "Shown to the visitor; empty: only the spinner stops" })),
    show_alert: t.Optional(t.Boolean({ description: "An alert the visitor dismisses instead of a toast" })),
    url: t.Optional(t.String({ maxLength: MAX_URL_LENGTH, description: "Offered to the visitor as a link (http/https only)" })),
    cache_time: t.Optional(t.Integer({ minimum: 0, description: "Accepted for Telegram compatibility; not used" })),
  },
  { title: "AnswerCallbackQueryRequest", examples: [{ callback_query_id: "5f0c2b9d8e3a4f7c9b1d2e3f4a5b6c7d", text: "Prices sent!", show_alert: false }] },
);

export const HandoffRequest = t.Object(
  { chat_id: t.String({ minLength: 1, maxLength: 256 }) },
  { title: "HandoffRequest", examples: [{ chat_id: "w_0b5e6c1e" }] },
);
export const HandoffResult = t.Object(
  { chat_id: t.String(), handled_by: t.Literal("human") },
  { title: "HandoffResult", examples: [{ chat_id: "w_0b5e6c1e", handled_by: "human" }] },
);
export type EditMessageTextRequest = typeof EditMessageTextRequest.static;

export const DeleteMessageRequest = t.Object({ message_id: MessageIdField }, { title: "DeleteMessageRequest" });

export { BotCommandSchema, SetMyCommandsRequest } from "../../domain/runtime.ts";

export const BotInfo = t.Object(
  {
    id: t.String({ format: "uuid" }),
    number: t.Integer(),
    is_bot: t.Literal(true),
    first_name: t.String(),
    username: t.String(),
    description: t.Union([t.String(), t.Null()]),
  },
  { title: "BotInfo" },
);

// What the routes validate must stay what the domain takes (the domain's types are plain TS).
const acceptedByDomain: [GetUpdatesQuery extends PollInput ? true : false, SendMessageRequest extends SendInput ? true : false,
  EditMessageTextRequest extends EditInput ? true : false, typeof AnswerCallbackQueryRequest.static extends CallbackAnswer ? true : false,
  Same<typeof RuntimeMessage.static, RuntimeMessageShape>] = [true, true, true, true, true];
void acceptedByDomain;
