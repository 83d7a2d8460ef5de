import { t } from "elysia";
import { MAX_URL_LENGTH } from "../../core/limits.ts";

/** Telegram allows 64 characters for a bot name; we match it. */
export const MAX_BOT_NAME_LENGTH = 64;
/** Telegram's bot description limit. */
export const MAX_BOT_DESCRIPTION_LENGTH = 512;
export { MAX_URL_LENGTH };

export const BotIdParams = t.Object({ id: t.String({ format: "uuid", description: "Bot UUID" }) });
export type BotIdParams = typeof BotIdParams.static;

export const HttpUrl = t.String({
  format: "uri",
  pattern: "^[Hh][Tt][Tt][Pp][Ss]?://",
  maxLength: MAX_URL_LENGTH,
  description: "An http(s) URL",
});

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
    token: t.String({ description: "Bot token `<number>:<secret>` for the runtime API" }),
    widget_key: t.String({ description: "Public key for the widget" }),
    integration_key: t.String({ description: "Key for the site-form integration" }),
    created_at: t.String({ format: "date-time" }),
  },
  { title: "Bot", examples: [{"id": "6f1c2d8e-3b4a-4c5d-9e8f-0a1b2c3d4e5f", "number": 7, "name": "Support bot", "username": "support_bot", "description": null, "webhook_url": null, "token": "7:Zq3xW9vK2mN8pL4tR6yB1cD5fG7hJ0kM", "widget_key": "wk_5Fh2Kq9Lm3Np7Rs1", "integration_key": "ik_8Tv4Wx6Yz2Ab9Cd3", "created_at": "2026-01-01T09:30:00.000Z"}] },
);
export type Bot = typeof Bot.static;
