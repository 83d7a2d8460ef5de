import { t } from "elysia";


export const WidgetConfigQuery = t.Object({ widget_key: t.String({ minLength: 1, maxLength: 256 }) });

export const WidgetConfigResult = t.Object(
  {
    bot_id: t.String({ format: "uuid" }),
    title: t.String(),
    subtitle: t.String(),
    greeting: t.Union([t.String(), t.Null()]),
    color: t.String(),
    position: t.Union([t.Literal("left"), t.Literal("right")]),
    channel: t.Literal("widget"),
    away: t.Optional(t.Boolean({ description: "The team is away: outside the bot's working hours or nobody online (only for a bot with hours set)" })),
    away_message: t.Optional(t.Union([t.String(), t.Null()], { description: "What the widget shows while away" })),
    opens_at: t.Optional(t.Union([t.String({ format: "date-time" }), t.Null()], { description: "Outside working hours: when they begin again (within 14 days)" })),
  },
  { title: "WidgetConfig", examples: [{"bot_id": "6f1c2d8e-3b4a-4c5d-9e8f-0a1b2c3d4e5f", "title": "Questions?", "subtitle": "We usually answer within minutes", "greeting": "Hi! Ask us anything.", "color": "#2563eb", "position": "right", "channel": "widget", "away": true, "away_message": "We are away and answer from 9:00.", "opens_at": "2026-01-02T08:00:00.000Z"}] },
);
export type WidgetConfigResult = typeof WidgetConfigResult.static;
