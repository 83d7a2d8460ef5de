import { t } from "elysia";
import { SafeInt } from "../input.ts";
import { MAX_TEXT_LENGTH } from "../inbox/model.ts";

import {
  MAX_COMMAND_DESCRIPTION_LENGTH, MAX_COMMANDS, MAX_REPLY_MARKUP_BYTES, POLL_DEFAULT_TIMEOUT_SECONDS, POLL_MAX_TIMEOUT_SECONDS,
  UPDATES_DEFAULT_LIMIT, UPDATES_MAX_LIMIT,
  type EditMessageTextRequest as EditInput, type GetUpdatesQuery as PollInput, type SendMessageRequest as SendInput,
} from "../../domain/runtime.ts";
import { MESSAGE_UPDATE_KINDS, type MessageUpdateKind, type RuntimeMessage as RuntimeMessageShape } from "../../core/updates.ts";
import type { TOptional } from "@sinclair/typebox";
import type { CallbackAnswer } from "../../domain/buttons.ts";
import type { Same } from "../../core/records.ts";
import { MAX_CALLBACK_ANSWER_LENGTH, MAX_ENTITIES, MAX_URL_LENGTH } from "../../core/limits.ts";
import { MessageEntity } from "./entities.ts";
import { Attachments, FileSchema } from "../files/model.ts";

export {
  MAX_COMMAND_DESCRIPTION_LENGTH, MAX_COMMANDS, MAX_REPLY_MARKUP_BYTES, POLL_DEFAULT_TIMEOUT_SECONDS, POLL_MAX_TIMEOUT_SECONDS,
  UPDATES_DEFAULT_LIMIT, UPDATES_MAX_LIMIT,
};

export const BotIdPath = t.Object({ id: t.String({ format: "uuid", description: "Bot UUID" }) });

export const GetUpdatesQuery = t.Object({
  offset: t.Optional(SafeInt({ description: "Confirms every update below it; negative: the last |offset|" })),
  limit: t.Optional(SafeInt({ default: UPDATES_DEFAULT_LIMIT, description: `Updates per answer, 1..${UPDATES_MAX_LIMIT} (clamped)` })),
  timeout: t.Optional(SafeInt({ default: POLL_DEFAULT_TIMEOUT_SECONDS, description: `Long-poll seconds, 0..${POLL_MAX_TIMEOUT_SECONDS} (clamped); 0 answers at once` })),
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
    edit_date: t.Optional(t.Integer({ description: "Unix seconds of the last edit" })),
    attachments: t.Optional(t.Array(FileSchema, { description: "The message's files; text is then their caption" })),
  },
  {
    title: "RuntimeMessage",
    examples: [{
      message_id: "17",
      date: 1767225600,
      chat: { id: "visitor-42", type: "private", channel: "web" },
      from: { id: "visitor-42", first_name: "Ada", last_name: null },
      text: "/start hello",
      entities: [{ type: "bot_command", offset: 0, length: 6 }],
    }],
  },
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

/** What each message-carrying update kind means; the Update schema is built from MESSAGE_UPDATE_KINDS, so a new kind must be described here. */
const UPDATE_KIND_DOCS: Record<MessageUpdateKind, string> = {
  message: "A visitor's new message from any channel (web, widget, Telegram, form, API…)",
  edited_message: "A visitor edited one of their messages: the message as it is now, with edit_date",
  operator_message: "An operator answered the visitor from the inbox (the cabinet): the bot sees its human colleague's reply",
};

export const Update = t.Object(
  {
    update_id: t.Integer({ description: "Increasing per bot; confirm with get-updates offset = last update_id + 1" }),
    ...Object.fromEntries(MESSAGE_UPDATE_KINDS.map((kind) => [kind, t.Optional({ ...RuntimeMessage, description: UPDATE_KIND_DOCS[kind] })])) as {
      [K in MessageUpdateKind]: TOptional<typeof RuntimeMessage>;
    },
    callback_query: t.Optional(CallbackQuery),
  },
  {
    title: "Update",
    description: "Exactly one of the kinds is present",
    examples: [{ update_id: 1001, message: RuntimeMessage.examples[0] }],
  },
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
    chat_id: t.String({ minLength: 1, maxLength: 256, description: "The chat's id as updates show it (chat.id)" }),
    text: t.String({ maxLength: MAX_TEXT_LENGTH, description: "May be empty when attachments are given" }),
    attachments: t.Optional(Attachments),
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
  { title: "EditMessageTextRequest", examples: [{ message_id: "18", text: "Hello! How can I help you today?" }] },
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

export const DeleteMessageRequest = t.Object({ message_id: MessageIdField }, { title: "DeleteMessageRequest", examples: [{ message_id: "18" }] });

import { BotCommandSchema as DomainBotCommand, SetMyCommandsRequest as DomainSetMyCommands } from "../../domain/runtime.ts";
import { withExample } from "../envelope.ts";

export const BotCommandSchema = withExample(DomainBotCommand, { command: "start", description: "Talk to the bot" });
export const SetMyCommandsRequest = withExample(DomainSetMyCommands, {
  commands: [{ command: "start", description: "Talk to the bot" }, { command: "help", description: "What the bot can do" }],
});

export const BotInfo = t.Object(
  {
    id: t.String({ format: "uuid" }),
    number: t.Integer(),
    is_bot: t.Literal(true),
    first_name: t.String(),
    username: t.String(),
    description: t.Union([t.String(), t.Null()]),
  },
  {
    title: "BotInfo",
    examples: [{ id: "6f1c2d8e-3b4a-4c5d-9e8f-0a1b2c3d4e5f", number: 7, is_bot: true, first_name: "Support bot", username: "support_bot", description: null }],
  },
);

// What the routes validate must stay what the domain takes (the domain's types are plain TS).
const acceptedByDomain: [GetUpdatesQuery extends PollInput ? true : false, SendMessageRequest extends SendInput ? true : false,
  EditMessageTextRequest extends EditInput ? true : false, typeof AnswerCallbackQueryRequest.static extends CallbackAnswer ? true : false,
  Same<typeof RuntimeMessage.static, RuntimeMessageShape>] = [true, true, true, true, true];
void acceptedByDomain;
