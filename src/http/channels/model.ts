import { t } from "elysia";
import { HttpUrl } from "../bots/model.ts";
import { oneOf } from "../feature.ts";

import { CHANNEL_TYPES, type ChannelType } from "../../core/records.ts";

export { CALLBACK_CHANNELS, CHANNEL_TYPES, type ChannelType } from "../../core/records.ts";

/** Widget texts are shown in a small panel; longer ones would break its layout. */
export const MAX_WIDGET_TEXT_LENGTH = 200;
/** A greeting is one short paragraph. */
export const MAX_GREETING_LENGTH = 1000;
/** A site rarely embeds the widget on more origins than this. */
export const MAX_ALLOWED_ORIGINS = 50;
/** HMAC secrets: long enough to be strong, short enough to fit a header budget. */
export const MIN_CALLBACK_SECRET_LENGTH = 8;
export const MAX_CALLBACK_SECRET_LENGTH = 256;

export const ChannelTypeSchema = oneOf(CHANNEL_TYPES, { description: "One of the eight channel types" });

/** Known keys are checked; other keys pass through for integrations' own use. */
export const WidgetConfig = t.Object(
  {
    title: t.Optional(t.String({ maxLength: MAX_WIDGET_TEXT_LENGTH })),
    subtitle: t.Optional(t.String({ maxLength: MAX_WIDGET_TEXT_LENGTH })),
    greeting: t.Optional(t.String({ maxLength: MAX_GREETING_LENGTH })),
    color: t.Optional(t.String({ pattern: "^#[0-9a-fA-F]{6}$", description: "#rrggbb" })),
    position: t.Optional(oneOf(["left", "right"])),
    allowed_origins: t.Optional(
      t.Array(t.String({ pattern: "^https?://[^/\\s]+$", description: "scheme://host[:port]" }), { maxItems: MAX_ALLOWED_ORIGINS }),
    ),
  },
  { additionalProperties: true },
);

export const CallbackConfig = t.Object(
  {
    callback_url: t.Optional(HttpUrl),
    secret: t.Optional(t.String({ minLength: MIN_CALLBACK_SECRET_LENGTH, maxLength: MAX_CALLBACK_SECRET_LENGTH })),
  },
  { additionalProperties: true },
);

export const ChannelPatch = t.Object(
  {
    channel_type: ChannelTypeSchema,
    is_active: t.Optional(t.Boolean()),
    config: t.Optional(t.Record(t.String(), t.Unknown(), { description: "Per-type settings (DESIGN §5)" })),
  },
  { title: "ChannelPatch", examples: [{"channel_type": "widget", "is_active": true, "config": {"title": "Questions?", "color": "#2563eb", "allowed_origins": ["https://shop.example.com"]}}] },
);
export type ChannelPatch = typeof ChannelPatch.static;

export const Channel = t.Object(
  {
    channel_type: ChannelTypeSchema,
    is_active: t.Boolean(),
    config: t.Record(t.String(), t.Unknown()),
    updated_at: t.Union([t.String({ format: "date-time" }), t.Null()], { description: "null when never configured" }),
  },
  { title: "Channel", examples: [{"channel_type": "widget", "is_active": true, "config": {"title": "Questions?", "color": "#2563eb"}, "updated_at": "2026-01-01T09:30:00.000Z"}] },
);
export type Channel = typeof Channel.static;
