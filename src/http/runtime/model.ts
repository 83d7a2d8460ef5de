import { t } from "elysia";
import { SafeInt } from "../input.ts";
import { MAX_TEXT_LENGTH } from "../inbox/model.ts";

import {
  MAX_COMMAND_DESCRIPTION_LENGTH, MAX_COMMANDS, MAX_REPLY_MARKUP_BYTES, POLL_DEFAULT_TIMEOUT_SECONDS, POLL_MAX_TIMEOUT_SECONDS,
  UPDATES_DEFAULT_LIMIT, UPDATES_MAX_LIMIT,
  type EditMessageTextRequest as EditInput, type GetUpdatesQuery as PollInput, type SendMessageRequest as SendInput,
} from "../../domain/runtime.ts";
import type { RuntimeMessage as RuntimeMessageShape } from "../../core/updates.ts";
import type { Same } from "../../core/records.ts";

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
    entities: t.Optional(t.Array(t.Object({ type: t.Literal("bot_command"), offset: t.Integer(), length: t.Integer() }))),
    metadata: t.Optional(Json),
    form: t.Optional(Json),
    reply_markup: t.Optional(Json),
    edit_date: t.Optional(t.Integer()),
  },
  { title: "RuntimeMessage" },
);

export const Update = t.Object(
  {
    update_id: t.Integer(),
    message: t.Optional(RuntimeMessage),
    edited_message: t.Optional(RuntimeMessage),
    operator_message: t.Optional(RuntimeMessage),
  },
  { title: "Update" },
);

const MessageIdField = t.Union([t.String({ pattern: "^[0-9]{1,15}$" }), SafeInt({ minimum: 1 })], {
  description: "message_id of a message this bot sent",
});

export const SendMessageRequest = t.Object(
  {
    chat_id: t.String({ minLength: 1, maxLength: 256 }),
    text: t.String({ minLength: 1, maxLength: MAX_TEXT_LENGTH }),
    channel: t.Optional(t.String({ maxLength: 64, description: "Informational; the reply goes to the chat's channel" })),
    reply_markup: t.Optional(Json),
  },
  { title: "SendMessageRequest" },
);
export type SendMessageRequest = typeof SendMessageRequest.static;

export const EditMessageTextRequest = t.Object(
  { message_id: MessageIdField, text: t.String({ minLength: 1, maxLength: MAX_TEXT_LENGTH }), reply_markup: t.Optional(Json) },
  { title: "EditMessageTextRequest" },
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
  EditMessageTextRequest extends EditInput ? true : false] = [true, true, true];
void acceptedByDomain;
