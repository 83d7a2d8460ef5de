import { t } from "elysia";
import { oneOf } from "../feature.ts";

import { CHANNEL_TYPES, type ChannelType } from "../../core/records.ts";

export { CHANNEL_TYPES, type ChannelType } from "../../core/records.ts";

export const ChannelTypeSchema = oneOf(CHANNEL_TYPES, { description: "One of the eight channel types" });

export const ChannelPatch = t.Object(
  {
    channel_type: ChannelTypeSchema,
    is_active: t.Optional(t.Boolean()),
    config: t.Optional(t.Record(t.String(), t.Unknown(), {
      description: "Per-type settings (docs/design.md §5), merged into the stored ones key by key; a key set to null is removed. Secrets stay unless given",
    })),
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
