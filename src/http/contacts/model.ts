import { t } from "elysia";
import {
  CONTACTS_DEFAULT_LIMIT, CONTACTS_MAX_LIMIT, MAX_CONTACT_ATTRIBUTES, type ContactDetail as DetailRecord,
} from "../../domain/contacts.ts";
import type { ContactEdit } from "../../domain/contacts.ts";
import type { Same } from "../../core/records.ts";
import { SafeInt } from "../input.ts";
import { Contact, ContactConversation } from "../inbox/model.ts";
import { MAX_NAME_LENGTH } from "../messages/model.ts";
import { MAX_EMAIL_LENGTH, MAX_PHONE_LENGTH, PHONE_PATTERN } from "../../core/contact-fields.ts";

export const ContactDetail = t.Composite(
  [Contact, t.Object({ bot_id: t.String({ format: "uuid" }), conversations: t.Array(ContactConversation, { description: "Newest activity first" }) })],
  {
    title: "ContactDetail",
    examples: [{
      id: "5d6e7f80-9a1b-4c2d-8e3f-4a5b6c7d8e9f", number: 3, external_user_id: "visitor-42", first_name: "Ada", last_name: null, name: "Ada",
      email: "ada@example.com", phone: "+44 20 7946 0018", created_at: "2026-01-01T09:30:00.000Z", attributes: { plan: "pro" },
      bot_id: "6f1c2d8e-3b4a-4c5d-9e8f-0a1b2c3d4e5f",
      conversations: [{ id: "9a8b7c6d-5e4f-4a3b-9c2d-1e0f2a3b4c5d", chat_id: "visitor-42", channel: "widget", status: "open", last_message_at: "2026-01-01T09:30:00.000Z" }],
    }],
  },
);

export const ContactsQuery = t.Object({
  q: t.Optional(t.String({ maxLength: 200, description: "Search name, e-mail, phone and external id" })),
  limit: t.Optional(SafeInt({ minimum: 1, description: `Default ${CONTACTS_DEFAULT_LIMIT}, clamped to ${CONTACTS_MAX_LIMIT}` })),
  cursor: t.Optional(SafeInt({ minimum: 1, description: "The last contact's `number`: continue with older contacts" })),
});

const NullableText = (max: number, extra: Record<string, unknown> = {}) => t.Union([t.String({ maxLength: max, ...extra }), t.Null()]);

export const ContactPatch = t.Object(
  {
    name: t.Optional(NullableText(MAX_NAME_LENGTH)),
    email: t.Optional(t.Union([t.String({ format: "email", maxLength: MAX_EMAIL_LENGTH }), t.Literal(""), t.Null()])),
    phone: t.Optional(t.Union([t.String({ pattern: PHONE_PATTERN, maxLength: MAX_PHONE_LENGTH }), t.Literal(""), t.Null()])),
    attributes: t.Optional(t.Record(t.String({ minLength: 1, maxLength: 100 }), t.Union([t.String(), t.Number(), t.Boolean(), t.Null()]), {
      maxProperties: MAX_CONTACT_ATTRIBUTES, description: "Replaces the attributes: strings, numbers, booleans or null",
    })),
  },
  { title: "ContactPatch", examples: [{ name: "Ada Lovelace", email: "ada@example.com", phone: "+44 20 7946 0018", attributes: { plan: "pro" } }] },
);

export const MergeRequest = t.Object(
  { into: t.String({ format: "uuid", description: "The contact that stays (same bot)" }) },
  { title: "MergeRequest", examples: [{ into: "5d6e7f80-9a1b-4c2d-8e3f-4a5b6c7d8e9f" }] },
);

export const ContactIdParams = t.Object({ id: t.String({ format: "uuid", description: "Contact UUID" }) });

const sameShapes: [Same<typeof ContactDetail.static, DetailRecord>, typeof ContactPatch.static extends ContactEdit ? true : false] = [true, true];
void sameShapes;
