import { t } from "elysia";
import { LABEL_COLOR_PATTERN, MAX_LABEL_NAME_LENGTH, MAX_LABELS_PER_BOT, type Label as LabelRecord } from "../../domain/labels.ts";
import { MAX_BULK_IDS, type BulkChange as BulkInput, type BulkResult as BulkRecord } from "../../domain/bulk.ts";
import { MAX_MENTIONS_PER_NOTE, MENTIONS_DEFAULT_LIMIT, MENTIONS_MAX_LIMIT } from "../../domain/notes.ts";
import type { Mention as MentionRecord } from "../../core/events.ts";
import type { Same } from "../../core/records.ts";
import { MAX_TEXT_LENGTH } from "../../core/limits.ts";
import { SafeInt } from "../input.ts";
import { LabelName, Status } from "../inbox/model.ts";

export const Label = t.Object(
  {
    id: t.String({ format: "uuid" }),
    bot_id: t.String({ format: "uuid" }),
    name: t.String(),
    color: t.String({ description: "#rrggbb" }),
    created_at: t.String({ format: "date-time" }),
  },
  { title: "Label", examples: [{ id: "7e1d2c3b-4a5f-4e6d-8c7b-9a0f1e2d3c4b", bot_id: "6f1c2d8e-3b4a-4c5d-9e8f-0a1b2c3d4e5f", name: "billing", color: "#e5484d", created_at: "2026-01-01T09:30:00.000Z" }] },
);

export const LabelRequest = t.Object(
  {
    name: t.String({ minLength: 1, maxLength: MAX_LABEL_NAME_LENGTH, description: "Unique within the bot (409 otherwise); no commas" }),
    color: t.String({ pattern: LABEL_COLOR_PATTERN, description: "#rrggbb" }),
  },
  { title: "LabelRequest", examples: [{ name: "billing", color: "#e5484d" }] },
);

export const LabelParams = t.Object({ id: t.String({ format: "uuid", description: "Bot UUID" }), label_id: t.String({ format: "uuid" }) });

export const NoteRequest = t.Object(
  {
    text: t.String({ minLength: 1, maxLength: MAX_TEXT_LENGTH }),
    mentions: t.Optional(t.Array(t.String({ format: "uuid" }), { maxItems: MAX_MENTIONS_PER_NOTE, description: "User ids of members of the bot to notify" })),
  },
  { title: "NoteRequest", examples: [{ text: "@Anna can you check the refund?", mentions: ["0b6e7c1a-2d3f-4a5b-8c9d-1e2f3a4b5c6d"] }] },
);

export const Mention = t.Object(
  {
    id: t.String({ format: "uuid" }),
    bot_id: t.String({ format: "uuid" }),
    conversation_id: t.String({ format: "uuid" }),
    chat_id: t.String(),
    message_id: t.String({ format: "uuid", description: "The note's message id (UUID)" }),
    text: t.String(),
    by: t.Union([t.Object({ user_id: t.String({ format: "uuid" }), email: t.String() }), t.Null()], { description: "Who wrote the note" }),
    created_at: t.String({ format: "date-time" }),
  },
  { title: "Mention", examples: [{ id: "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d", bot_id: "6f1c2d8e-3b4a-4c5d-9e8f-0a1b2c3d4e5f", conversation_id: "9a8b7c6d-5e4f-4a3b-9c2d-1e0f2a3b4c5d", chat_id: "visitor-42", message_id: "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f", text: "@Anna can you check the refund?", by: { user_id: "0b6e7c1a-2d3f-4a5b-8c9d-1e2f3a4b5c6d", email: "owner@example.com" }, created_at: "2026-01-01T09:30:00.000Z" }] },
);

export const MentionsQuery = t.Object({
  limit: t.Optional(SafeInt({ minimum: 1, description: `Default ${MENTIONS_DEFAULT_LIMIT}, clamped to ${MENTIONS_MAX_LIMIT}` })),
  before: t.Optional(t.String({ format: "uuid", description: "A mention's id: older ones than it" })),
});

export const BulkRequest = t.Object(
  {
    ids: t.Array(t.String({ format: "uuid" }), { minItems: 1, maxItems: MAX_BULK_IDS, description: `Conversation ids, at most ${MAX_BULK_IDS}` }),
    status: t.Optional(Status),
    assignee_id: t.Optional(t.Union([t.String({ format: "uuid" }), t.Null()], { description: "A member of each conversation's bot; null unassigns" })),
    add_labels: t.Optional(t.Array(LabelName, { maxItems: MAX_LABELS_PER_BOT })),
    remove_labels: t.Optional(t.Array(LabelName, { maxItems: MAX_LABELS_PER_BOT })),
  },
  { title: "BulkRequest", examples: [{ ids: ["9a8b7c6d-5e4f-4a3b-9c2d-1e0f2a3b4c5d"], status: "closed", add_labels: ["billing"] }] },
);

export const BulkResult = t.Object(
  { id: t.String({ format: "uuid" }), ok: t.Boolean(), error: t.Optional(t.String()) },
  { title: "BulkResult", examples: [{ id: "9a8b7c6d-5e4f-4a3b-9c2d-1e0f2a3b4c5d", ok: true }] },
);

const sameShapes: [
  Same<typeof Label.static, LabelRecord>, Same<typeof Mention.static, MentionRecord>, Same<typeof BulkResult.static, BulkRecord>,
  typeof BulkRequest.static extends BulkInput ? true : false,
] = [true, true, true, true];
void sameShapes;
