import { t } from "elysia";
import { MAX_TEXT_LENGTH, MAX_URL_LENGTH } from "../../core/limits.ts";
import { MAX_EMAIL_LENGTH } from "../auth/model.ts";
import { oneOf } from "../feature.ts";
import { HttpUrl } from "../../domain/channels.ts";

/** Telegram allows 64 characters for a bot name; we match it. */
export const MAX_BOT_NAME_LENGTH = 64;
/** Telegram's bot description limit. */
export const MAX_BOT_DESCRIPTION_LENGTH = 512;
export { MAX_URL_LENGTH };

export const BotIdParams = t.Object({ id: t.String({ format: "uuid", description: "Bot UUID" }) });
export type BotIdParams = typeof BotIdParams.static;

export { HttpUrl };

export const BotCreateRequest = t.Object(
  {
    name: t.String({ minLength: 1, maxLength: MAX_BOT_NAME_LENGTH, examples: ["Support bot"] }),
    description: t.Optional(t.String({ maxLength: MAX_BOT_DESCRIPTION_LENGTH })),
    webhook_url: t.Optional(t.Union([HttpUrl, t.Null()])),
  },
  { title: "BotCreateRequest", examples: [{"name": "Support bot", "description": "Answers questions about orders"}] },
);
export type BotCreateRequest = typeof BotCreateRequest.static;

export const Bot = t.Object(
  {
    id: t.String({ format: "uuid" }),
    number: t.Integer({ description: "Positive integer id, as Telegram's bot id" }),
    name: t.String(),
    username: t.String({ description: "Unique, derived from the name, ends in `bot`" }),
    description: t.Union([t.String(), t.Null()]),
    webhook_url: t.Union([t.String(), t.Null()]),
    token: t.Optional(t.String({ description: "Bot token `<number>:<secret>` for the runtime API (owner only)" })),
    widget_key: t.String({ description: "Public key for the widget" }),
    integration_key: t.Optional(t.String({ description: "Key for the site-form integration (owner only)" })),
    role: oneOf(["owner", "operator"], { description: "The caller's role on the bot; an operator sees no token, channels or members" }),
    created_at: t.String({ format: "date-time" }),
  },
  { title: "Bot", examples: [{"id": "6f1c2d8e-3b4a-4c5d-9e8f-0a1b2c3d4e5f", "number": 7, "name": "Support bot", "username": "support_bot", "description": null, "webhook_url": null, "token": "7:Zq3xW9vK2mN8pL4tR6yB1cD5fG7hJ0kM", "widget_key": "wk_5Fh2Kq9Lm3Np7Rs1", "integration_key": "ik_8Tv4Wx6Yz2Ab9Cd3", "created_at": "2026-01-01T09:30:00.000Z"}] },
);
export type Bot = typeof Bot.static;

export const BotPatchRequest = t.Object(
  {
    name: t.Optional(t.String({ minLength: 1, maxLength: MAX_BOT_NAME_LENGTH })),
    description: t.Optional(t.String({ maxLength: MAX_BOT_DESCRIPTION_LENGTH })),
  },
  { title: "BotPatchRequest", examples: [{ name: "Shop support" }] },
);
export type BotPatchRequest = typeof BotPatchRequest.static;

export const MemberRole = oneOf(["owner", "operator"]);

/** A member's presence: what they chose, or online while a cabinet of theirs is open. */
export const Presence = oneOf(["online", "away", "offline"], { description: "online, away or offline (online while a cabinet is open, unless chosen otherwise)" });

export const Member = t.Object(
  {
    user_id: t.String({ format: "uuid" }),
    email: t.String({ examples: ["operator@example.com"] }),
    role: MemberRole,
    joined_at: t.String({ format: "date-time" }),
    presence: Presence,
  },
  { title: "Member", examples: [{ user_id: "6f1c1f5e-2b7a-4f43-9a65-0b6a5c7e9d11", email: "operator@example.com", role: "operator", joined_at: "2026-11-23T18:00:00.000Z", presence: "online" }] },
);
export type Member = typeof Member.static;

export const AssignableMember = t.Object(
  { user_id: t.String({ format: "uuid" }), email: t.String(), role: MemberRole, presence: Presence },
  { title: "AssignableMember", examples: [{ user_id: "6f1c1f5e-2b7a-4f43-9a65-0b6a5c7e9d11", email: "operator@example.com", role: "operator", presence: "away" }] },
);

export const MemberParams = t.Object({
  id: t.String({ format: "uuid", description: "Bot UUID" }),
  user_id: t.String({ format: "uuid", description: "The member's user id" }),
});

export const InviteRequest = t.Object(
  {
    email: t.String({ format: "email", maxLength: MAX_EMAIL_LENGTH, description: "Who may accept it (their account's e-mail)" }),
    role: t.Optional(oneOf(["operator"], { description: "Only operators are invited; the owner is who created the bot" })),
  },
  { title: "InviteRequest", examples: [{ email: "operator@example.com", role: "operator" }] },
);

export const Invite = t.Object(
  {
    id: t.String({ format: "uuid" }),
    email: t.String(),
    role: oneOf(["operator"]),
    created_at: t.String({ format: "date-time" }),
    expires_at: t.String({ format: "date-time" }),
  },
  { title: "Invite", examples: [{ id: "0f8fad5b-d9cb-469f-a165-70867728950e", email: "operator@example.com", role: "operator", created_at: "2026-11-23T18:00:00.000Z", expires_at: "2026-11-30T18:00:00.000Z" }] },
);
export type Invite = typeof Invite.static;

export const CreatedInvite = t.Composite(
  [
    Invite,
    t.Object({
      code: t.String({ description: "Shown once: the invitee enters it (or opens invite_url) after logging in" }),
      invite_url: t.String({ description: "`${PUBLIC_URL}/#invite=<code>`" }),
      mailed: t.Optional(t.Boolean({ description: "true when the server mailed the link to the invitee (SMTP_URL is set)" })),
    }),
  ],
  {
    title: "CreatedInvite",
    examples: [{
      id: "0f8fad5b-d9cb-469f-a165-70867728950e", email: "operator@example.com", role: "operator", created_at: "2026-11-23T18:00:00.000Z", expires_at: "2026-11-30T18:00:00.000Z",
      code: "Jt4f0Qy2rB7m9KcXwVn3LpZs", invite_url: "https://inbox.example.com/#invite=Jt4f0Qy2rB7m9KcXwVn3LpZs",
    }],
  },
);

export const InviteParams = t.Object({
  id: t.String({ format: "uuid", description: "Bot UUID" }),
  invite_id: t.String({ format: "uuid", description: "Invite id" }),
});

export const AcceptInviteRequest = t.Object(
  { code: t.String({ minLength: 1, maxLength: 128, description: "The invite code" }) },
  { title: "AcceptInviteRequest", examples: [{ code: "Jt4f0Qy2rB7m9KcXwVn3LpZs" }] },
);

export const AcceptedInvite = t.Object(
  { bot_id: t.String({ format: "uuid" }), bot_name: t.String(), role: MemberRole },
  { title: "AcceptedInvite", examples: [{ bot_id: "6f1c1f5e-2b7a-4f43-9a65-0b6a5c7e9d11", bot_name: "Support bot", role: "operator" }] },
);

/** Why: short enough to type after "/", long enough to be descriptive. */
export const MAX_SHORTCUT_LENGTH = 32;

export const CannedReply = t.Object(
  {
    id: t.String({ format: "uuid" }),
    shortcut: t.String({ examples: ["hours"] }),
    text: t.String({ examples: ["We answer every day from 9:00 to 18:00."] }),
  },
  { title: "CannedReply", examples: [{ id: "0f8fad5b-d9cb-469f-a165-70867728950e", shortcut: "hours", text: "We answer every day from 9:00 to 18:00." }] },
);
export type CannedReply = typeof CannedReply.static;

export const CannedReplyRequest = t.Object(
  {
    shortcut: t.String({ minLength: 1, maxLength: MAX_SHORTCUT_LENGTH, pattern: "^[A-Za-z0-9_-]+$", description: "Typed after `/`" }),
    text: t.String({ minLength: 1, maxLength: MAX_TEXT_LENGTH }),
  },
  { title: "CannedReplyRequest", examples: [{ shortcut: "hours", text: "We answer every day from 9:00 to 18:00." }] },
);

export const CannedReplyParams = t.Object({
  id: t.String({ format: "uuid", description: "Bot UUID" }),
  reply_id: t.String({ format: "uuid", description: "Canned reply id" }),
});
