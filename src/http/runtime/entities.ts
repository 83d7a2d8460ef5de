// Telegram's MessageEntity as a schema, shared by the inbox, public history and runtime models.
import { t } from "elysia";
import { ENTITY_TYPES } from "../../core/updates.ts";
import { oneOf } from "../feature.ts";

export const MessageEntity = t.Object(
  {
    type: oneOf(ENTITY_TYPES),
    offset: t.Integer({ minimum: 0, description: "UTF-16 code units" }),
    length: t.Integer({ minimum: 1 }),
    url: t.Optional(t.String({ description: "text_link only" })),
    language: t.Optional(t.String({ description: "pre only" })),
  },
  { title: "MessageEntity" },
);
