import { t } from "elysia";
import { SafeInt } from "../input.ts";
import { oneOf } from "../feature.ts";

import { MAX_NOTE_LENGTH, MAX_TEXT_LENGTH } from "../../core/limits.ts";
import {
  DETAIL_MESSAGE_LIMIT, INBOX_DEFAULT_LIMIT, INBOX_MAX_LIMIT,
  type ConversationDetail as DetailRecord, type ConversationMetaPatch as PatchInput, type InboxQuery as InboxInput,
} from "../../domain/inbox.ts";
import { MessageEntity } from "../runtime/entities.ts";
import { Attachments, FileSchema } from "../files/model.ts";
import { HANDLERS, STATUSES, type InboxConversation as InboxRecord, type Contact as ContactRecord, type Conversation as ConversationRecord, type Message as MessageRecord, type Same } from "../../core/records.ts";

export { STATUSES };
export const Status = oneOf(STATUSES, { description: "Conversation status" });

export { DETAIL_MESSAGE_LIMIT, INBOX_DEFAULT_LIMIT, INBOX_MAX_LIMIT };
export { MAX_NOTE_LENGTH, MAX_TEXT_LENGTH };
/** Search terms shorter than this match nearly everything; longer ones are pointless. */
export const MAX_QUERY_LENGTH = 200;

const Nullable = <T extends Parameters<typeof t.Union>[0][number]>(schema: T) => t.Union([schema, t.Null()]);
const Json = t.Record(t.String(), t.Unknown());

export const Contact = t.Object(
  {
    id: t.String({ format: "uuid" }),
    number: t.Integer({ description: "Integer id unique within the bot" }),
    external_user_id: Nullable(t.String()),
    first_name: Nullable(t.String()),
    last_name: Nullable(t.String()),
    name: Nullable(t.String()),
    email: Nullable(t.String()),
    phone: Nullable(t.String()),
    created_at: t.String({ format: "date-time" }),
    verified: t.Boolean({ description: "A widget user the site vouched for with user_hash (signed with the bot's identity secret)" }),
  },
  { title: "Contact", examples: [{"id": "5d6e7f80-9a1b-4c2d-8e3f-4a5b6c7d8e9f", "number": 3, "external_user_id": "visitor-42", "first_name": "Ada", "last_name": null, "name": "Ada", "email": "ada@example.com", "phone": null, "created_at": "2026-01-01T09:30:00.000Z", "verified": false}] },
);
export type Contact = typeof Contact.static;

export const Message = t.Object(
  {
    id: t.String({ format: "uuid" }),
    message_id: t.String({ description: "Per-bot increasing integer, as a string" }),
    conversation_id: t.String({ format: "uuid" }),
    chat_id: t.String(),
    channel: t.String(),
    direction: oneOf(["in", "out"]),
    sender: oneOf(["user", "bot", "operator"]),
    text: t.String(),
    entities: Nullable(t.Array(MessageEntity, { description: "Formatting of text (Telegram's MessageEntity, UTF-16 offsets)" })),
    reply_markup: Nullable(Json),
    metadata: Json,
    attachments: t.Array(FileSchema, { description: "The message's files; text is then their caption and may be empty" }),
    created_at: t.String({ format: "date-time" }),
    edited_at: Nullable(t.String({ format: "date-time" })),
    delivery: t.Optional(
      Nullable(oneOf(["pending", "delivered", "failed"], {
        description: "Outgoing messages on a channel with a callback_url: state of the signed POST to it; in an e-mail conversation with an SMTP server: state of the mail",
      })),
    ),
    delivery_error: t.Optional(Nullable(t.String({ description: "Why a failed (or retried) mail did not go out: the SMTP server's answer, a bounce, or a refusal" }))),
  },
  { title: "Message", examples: [{"id": "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f", "message_id": "17", "conversation_id": "9a8b7c6d-5e4f-4a3b-9c2d-1e0f2a3b4c5d", "chat_id": "visitor-42", "channel": "web", "direction": "in", "sender": "user", "text": "Hello, is anyone there?", "entities": null, "reply_markup": null, "metadata": {"page_url": "https://shop.example.com/pricing"}, "attachments": [], "created_at": "2026-01-01T09:30:00.000Z", "edited_at": null}] },
);
export type Message = typeof Message.static;

export const Conversation = t.Object(
  {
    id: t.String({ format: "uuid" }),
    bot_id: t.String({ format: "uuid" }),
    channel: t.String(),
    chat_id: t.String(),
    number: t.Integer(),
    status: Status,
    operator_note: t.String(),
    contact: Nullable(Contact),
    last_message: Nullable(Message),
    message_count: t.Integer(),
    handled_by: oneOf(HANDLERS, { description: "bot: incoming messages reach the bot; human: taken over, the bot gets nothing" }),
    handed_over_by: Nullable(t.String({ format: "uuid", description: "User who took it over (null: the bot handed it over)" })),
    handed_over_at: Nullable(t.String({ format: "date-time" })),
    created_at: t.String({ format: "date-time" }),
    updated_at: t.String({ format: "date-time" }),
    last_message_at: t.String({ format: "date-time" }),
  },
  { title: "Conversation", examples: [{"id": "9a8b7c6d-5e4f-4a3b-9c2d-1e0f2a3b4c5d", "bot_id": "6f1c2d8e-3b4a-4c5d-9e8f-0a1b2c3d4e5f", "channel": "web", "chat_id": "visitor-42", "number": 12, "status": "open", "operator_note": "", "contact": {"id": "5d6e7f80-9a1b-4c2d-8e3f-4a5b6c7d8e9f", "number": 3, "external_user_id": "visitor-42", "first_name": "Ada", "last_name": null, "name": "Ada", "email": "ada@example.com", "phone": null, "created_at": "2026-01-01T09:30:00.000Z", "verified": false}, "last_message": {"id": "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f", "message_id": "17", "conversation_id": "9a8b7c6d-5e4f-4a3b-9c2d-1e0f2a3b4c5d", "chat_id": "visitor-42", "channel": "web", "direction": "in", "sender": "user", "text": "Hello, is anyone there?", "entities": null, "reply_markup": null, "metadata": {"page_url": "https://shop.example.com/pricing"}, "created_at": "2026-01-01T09:30:00.000Z", "edited_at": null}, "message_count": 1, "handled_by": "bot", "handed_over_by": null, "handed_over_at": null, "created_at": "2026-01-01T09:30:00.000Z", "updated_at": "2026-01-01T09:30:00.000Z", "last_message_at": "2026-01-01T09:30:00.000Z"}] },
);
export type Conversation = typeof Conversation.static;

// The schemas and core's plain records must not drift apart: the domain speaks the records.
const sameShapes: [Same<Contact, ContactRecord>, Same<Message, MessageRecord>, Same<Conversation, ConversationRecord>] = [true, true, true];
void sameShapes;

export const Assignee = t.Object(
  { user_id: t.String({ format: "uuid" }), email: t.String({ examples: ["operator@example.com"] }) },
  { title: "Assignee", description: "The member the conversation is assigned to" },
);

export const InboxConversation = t.Composite(
  [
    Conversation,
    t.Object({
      assignee: Nullable(Assignee),
      unread_count: t.Integer({ minimum: 0, description: "Incoming messages after the caller's read marker" }),
      snoozed_until: t.Optional(Nullable(t.String({ format: "date-time", description: "A snoozed (waiting) conversation reopens then" }))),
    }),
  ],
  { title: "InboxConversation", examples: [{"id": "9a8b7c6d-5e4f-4a3b-9c2d-1e0f2a3b4c5d", "bot_id": "6f1c2d8e-3b4a-4c5d-9e8f-0a1b2c3d4e5f", "channel": "web", "chat_id": "visitor-42", "number": 12, "status": "open", "operator_note": "", "contact": {"id": "5d6e7f80-9a1b-4c2d-8e3f-4a5b6c7d8e9f", "number": 3, "external_user_id": "visitor-42", "first_name": "Ada", "last_name": null, "name": "Ada", "email": "ada@example.com", "phone": null, "created_at": "2026-01-01T09:30:00.000Z", "verified": false}, "last_message": {"id": "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f", "message_id": "17", "conversation_id": "9a8b7c6d-5e4f-4a3b-9c2d-1e0f2a3b4c5d", "chat_id": "visitor-42", "channel": "web", "direction": "in", "sender": "user", "text": "Hello, is anyone there?", "entities": null, "reply_markup": null, "metadata": {"page_url": "https://shop.example.com/pricing"}, "created_at": "2026-01-01T09:30:00.000Z", "edited_at": null}, "message_count": 1, "handled_by": "bot", "handed_over_by": null, "handed_over_at": null, "created_at": "2026-01-01T09:30:00.000Z", "updated_at": "2026-01-01T09:30:00.000Z", "last_message_at": "2026-01-01T09:30:00.000Z", "assignee": {"user_id": "0b6e7c1a-2d3f-4a5b-8c9d-1e2f3a4b5c6d", "email": "operator@example.com"}, "unread_count": 1}] },
);
export type InboxConversation = typeof InboxConversation.static;

export const ContactConversation = t.Object(
  {
    id: t.String({ format: "uuid" }),
    chat_id: t.String(),
    channel: t.String(),
    status: Status,
    last_message_at: t.String({ format: "date-time" }),
  },
  { title: "ContactConversation", description: "Another conversation of the same contact" },
);

export const PageInfo = t.Object(
  { url: t.String({ examples: ["https://shop.example.com/pricing"] }), title: Nullable(t.String({ examples: ["Pricing"] })) },
  { title: "PageInfo", description: "The page the visitor wrote from (newest incoming message's page_url/page_title)" },
);

export const ConversationRating = t.Object(
  {
    rating: t.Integer({ minimum: 1, maximum: 5, examples: [5] }),
    comment: Nullable(t.String({ examples: ["Quick and friendly"] })),
    created_at: t.String({ format: "date-time", examples: ["2026-01-01T10:00:00.000Z"] }),
  },
  { title: "ConversationRating", description: "The visitor's 1–5 rating of the closed conversation (POST /api/messages/rating)" },
);

export const ConversationDetail = t.Composite(
  [
    InboxConversation,
    t.Object({
      messages: t.Array(Message),
      contacts: t.Array(Contact),
      contact_conversations: t.Array(ContactConversation),
      page: Nullable(PageInfo),
      rating: Nullable(ConversationRating),
    }),
  ],
  { title: "ConversationDetail", examples: [{"id": "9a8b7c6d-5e4f-4a3b-9c2d-1e0f2a3b4c5d", "bot_id": "6f1c2d8e-3b4a-4c5d-9e8f-0a1b2c3d4e5f", "channel": "web", "chat_id": "visitor-42", "number": 12, "status": "open", "operator_note": "", "contact": {"id": "5d6e7f80-9a1b-4c2d-8e3f-4a5b6c7d8e9f", "number": 3, "external_user_id": "visitor-42", "first_name": "Ada", "last_name": null, "name": "Ada", "email": "ada@example.com", "phone": null, "created_at": "2026-01-01T09:30:00.000Z", "verified": false}, "last_message": {"id": "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f", "message_id": "17", "conversation_id": "9a8b7c6d-5e4f-4a3b-9c2d-1e0f2a3b4c5d", "chat_id": "visitor-42", "channel": "web", "direction": "in", "sender": "user", "text": "Hello, is anyone there?", "entities": null, "reply_markup": null, "metadata": {"page_url": "https://shop.example.com/pricing"}, "created_at": "2026-01-01T09:30:00.000Z", "edited_at": null}, "message_count": 1, "handled_by": "bot", "handed_over_by": null, "handed_over_at": null, "created_at": "2026-01-01T09:30:00.000Z", "updated_at": "2026-01-01T09:30:00.000Z", "last_message_at": "2026-01-01T09:30:00.000Z", "assignee": {"user_id": "0b6e7c1a-2d3f-4a5b-8c9d-1e2f3a4b5c6d", "email": "operator@example.com"}, "unread_count": 1, "messages": [{"id": "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f", "message_id": "17", "conversation_id": "9a8b7c6d-5e4f-4a3b-9c2d-1e0f2a3b4c5d", "chat_id": "visitor-42", "channel": "web", "direction": "in", "sender": "user", "text": "Hello, is anyone there?", "entities": null, "reply_markup": null, "metadata": {"page_url": "https://shop.example.com/pricing"}, "created_at": "2026-01-01T09:30:00.000Z", "edited_at": null}], "contacts": [{"id": "5d6e7f80-9a1b-4c2d-8e3f-4a5b6c7d8e9f", "number": 3, "external_user_id": "visitor-42", "first_name": "Ada", "last_name": null, "name": "Ada", "email": "ada@example.com", "phone": null, "created_at": "2026-01-01T09:30:00.000Z", "verified": false}], "contact_conversations": [], "page": {"url": "https://shop.example.com/pricing", "title": "Pricing"}, "rating": null}] },
);
export type ConversationDetail = typeof ConversationDetail.static;

export const ConversationIdParams = t.Object({ id: t.String({ format: "uuid", description: "Conversation UUID" }) });

export const AssigneeFilter = oneOf(["me", "unassigned", "all"], {
  description: "`me`: assigned to the caller; `unassigned`; `all` (default)",
});

export const InboxQuery = t.Object({
  bot_id: t.Optional(t.String({ format: "uuid" })),
  status: t.Optional(Status),
  assignee: t.Optional(AssigneeFilter),
  q: t.Optional(t.String({ maxLength: MAX_QUERY_LENGTH, description: "Search contact, chat id, note and message text" })),
  limit: t.Optional(SafeInt({ minimum: 1, description: `Default ${INBOX_DEFAULT_LIMIT}, clamped to ${INBOX_MAX_LIMIT}` })),
  before: t.Optional(t.String({ format: "uuid", description: "Conversation id: continue after it" })),
});
export type InboxQuery = typeof InboxQuery.static;

export const DetailQuery = t.Object({
  before: t.Optional(SafeInt({ minimum: 1, description: "message_id: older messages than this" })),
});

export const ReplyRequest = t.Object(
  { text: t.String({ maxLength: MAX_TEXT_LENGTH, description: "May be empty when attachments are given" }), attachments: t.Optional(Attachments) },
  { title: "OperatorReply", examples: [{"text": "Hi Ada, I am here. How can I help?"}] },
);

export const ConversationMetaPatch = t.Object(
  {
    status: t.Optional(Status),
    operator_note: t.Optional(t.String({ maxLength: MAX_NOTE_LENGTH })),
    assignee_id: t.Optional(Nullable(t.String({ format: "uuid", description: "A member of the bot; null unassigns" }))),
    snoozed_until: t.Optional(Nullable(t.String({
      format: "date-time", description: 'Snooze: with status "waiting", the conversation returns to open at this time (kept across restarts); null cancels',
    }))),
  },
  { title: "ConversationMetaPatch", examples: [{ status: "open" }, { assignee_id: null }] },
);
export type ConversationMetaPatch = typeof ConversationMetaPatch.static;

// What the routes validate and answer must stay what the domain takes and returns.
const sameAsDomain: [
  InboxQuery extends InboxInput ? true : false, ConversationMetaPatch extends PatchInput ? true : false,
  Same<ConversationDetail, DetailRecord>, Same<InboxConversation, InboxRecord>,
] = [true, true, true, true];
void sameAsDomain;

export const CountsQuery = t.Object({
  bot_id: t.Optional(t.String({ format: "uuid", description: "One bot (default: every bot of the caller)" })),
  assignee: t.Optional(AssigneeFilter),
});

const StatusCounts = (description: string) =>
  t.Object(
    { new: t.Integer(), open: t.Integer(), waiting: t.Integer(), closed: t.Integer(), all: t.Integer() },
    { description },
  );

export const InboxCounts = t.Object(
  {
    status: StatusCounts("Conversations per status tab"),
    unread: StatusCounts("Conversations with unread messages (for the caller) per status tab"),
  },
  {
    title: "InboxCounts",
    examples: [{ status: { new: 2, open: 5, waiting: 1, closed: 40, all: 48 }, unread: { new: 2, open: 1, waiting: 0, closed: 0, all: 3 } }],
  },
);

export const ReadRequest = t.Object(
  {
    message_id: t.Optional(
      t.Union([SafeInt({ minimum: 0 }), t.String({ pattern: "^[0-9]{1,15}$" })], {
        description: "The message_id read up to (default: the newest); the marker only moves forward",
      }),
    ),
  },
  { title: "ReadRequest", examples: [{}, { message_id: "42" }] },
);

export const ReadResult = t.Object(
  { conversation_id: t.String({ format: "uuid" }), unread_count: t.Integer({ minimum: 0 }) },
  { title: "ReadResult", examples: [{ conversation_id: "0f8fad5b-d9cb-469f-a165-70867728950e", unread_count: 0 }] },
);
