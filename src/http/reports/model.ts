import { t } from "elysia";
import type { Same } from "../../core/records.ts";
import type {
  ReportHeatmap as HeatmapRecord, ReportQuery as ReportInput, ReportSeries as SeriesRecord, ReportSummary as SummaryRecord, SeriesQuery as SeriesInput,
} from "../../domain/reports.ts";
import type { RatingRequest as RatingInput, RatingResult as RatingRecord } from "../../domain/ratings.ts";
import { MAX_RATING_COMMENT_LENGTH } from "../../core/limits.ts";
import { oneOf } from "../feature.ts";
import { MAX_EXTERNAL_ID_LENGTH, UserHash } from "../messages/model.ts";

const Nullable = <T extends Parameters<typeof t.Union>[0][number]>(schema: T) => t.Union([schema, t.Null()]);

const TIME = "An ISO time (2026-03-29T10:00:00+02:00; without an offset it is read in tz) or a date (2026-03-29, read in tz)";

const reportFields = {
  bot_id: t.Optional(t.String({ format: "uuid", description: "One bot the caller is a member of; absent: all of them (as the inbox)" })),
  channel: t.Optional(t.String({ minLength: 1, maxLength: 32, description: "Only conversations of this channel" })),
  from: t.Optional(t.String({ maxLength: 40, description: `${TIME}; default 30 days before to` })),
  to: t.Optional(t.String({ maxLength: 40, description: `${TIME}; a date means through the end of that day; default now` })),
  tz: t.Optional(t.String({ minLength: 1, maxLength: 64, description: "IANA time zone for dates, days and hours; default UTC", examples: ["Europe/Berlin"] })),
  format: t.Optional(oneOf(["json", "csv"] as const, { description: "csv answers text/csv (RFC 4180) with the same figures" })),
};

export const ReportQuery = t.Object(reportFields, { title: "ReportQuery" });
export const SeriesQuery = t.Object(
  {
    ...reportFields,
    metric: oneOf(["conversations", "first_response", "resolution"] as const, { description: "conversations: opened; the others: median seconds" }),
    group: t.Optional(oneOf(["day", "hour"] as const, { description: "Bucket in tz; default day (hour: at most 31 days)" })),
    by: t.Optional(oneOf(["channel", "agent"] as const, { description: "Split by channel, or by assignee e-mail (else \"unassigned\")" })),
  },
  { title: "SeriesQuery" },
);

const ReportRange = t.Object(
  {
    from: t.String({ format: "date-time" }),
    to: t.String({ format: "date-time" }),
    tz: t.String(),
    first_conversation_at: Nullable(t.String({ format: "date-time", description: "The first conversation of these bots ever: null means no data yet" })),
  },
  { title: "ReportRange", description: "The resolved range [from, to) the report covers" },
);
const range = { from: "2026-03-01T00:00:00.000Z", to: "2026-04-01T00:00:00.000Z", tz: "UTC", first_conversation_at: "2026-01-05T09:12:00.000Z" };
const Seconds = Nullable(t.Number({ description: "seconds; null without data" }));

export const ReportSummary = t.Object(
  {
    conversations: t.Object({ opened: t.Integer(), closed: t.Integer({ description: "Of those opened, closed at least once" }) }),
    first_response: t.Object({ median_s: Seconds, p90_s: Seconds }),
    resolution: t.Object({ median_s: Seconds, p90_s: Seconds }),
    bot_containment: Nullable(t.Number({ minimum: 0, maximum: 1, description: "Share of closed conversations with no operator message and no handoff" })),
    handoff_rate: Nullable(t.Number({ minimum: 0, maximum: 1, description: "Share of closed conversations with a handoff" })),
    csat: t.Object({ count: t.Integer(), average: Nullable(t.Number({ minimum: 1, maximum: 5 })) }),
    range: ReportRange,
  },
  {
    title: "ReportSummary",
    examples: [{
      conversations: { opened: 120, closed: 97 }, first_response: { median_s: 4, p90_s: 310 }, resolution: { median_s: 1800, p90_s: 86000 },
      bot_containment: 0.62, handoff_rate: 0.31, csat: { count: 40, average: 4.4 }, range,
    }],
  },
);

export const ReportSeries = t.Object(
  {
    points: t.Array(t.Object({
      t: t.String({ description: "The bucket's start, local time in tz with its offset" }),
      key: t.Optional(t.String({ description: "The channel or the agent, with by" })),
      value: t.Number(),
    })),
    range: ReportRange,
  },
  { title: "ReportSeries", examples: [{ points: [{ t: "2026-03-29T00:00:00+01:00", key: "widget", value: 12 }], range }] },
);

export const ReportHeatmap = t.Object(
  { counts: t.Array(t.Array(t.Integer(), { minItems: 24, maxItems: 24 }), { minItems: 7, maxItems: 7, description: "7 rows, Monday first, × 24 hours in tz" }), range: ReportRange },
  { title: "ReportHeatmap", examples: [{ counts: Array.from({ length: 7 }, () => new Array(24).fill(0)), range }] },
);

export const RatingRequest = t.Object(
  {
    bot_id: t.Optional(t.String({ format: "uuid" })),
    widget_key: t.Optional(t.String({ minLength: 1, maxLength: MAX_EXTERNAL_ID_LENGTH })),
    chat_id: t.String({ minLength: 1, maxLength: MAX_EXTERNAL_ID_LENGTH }),
    rating: t.Integer({ minimum: 1, maximum: 5 }),
    comment: t.Optional(t.String({ maxLength: MAX_RATING_COMMENT_LENGTH })),
    user_id: t.Optional(t.String({ minLength: 1, maxLength: MAX_EXTERNAL_ID_LENGTH, description: "With user_hash: the verified user whose chat this is" })),
    user_hash: t.Optional(UserHash),
  },
  { title: "RatingRequest", examples: [{ widget_key: "wk_3Jf8sQ2LmN", chat_id: "visitor-42", rating: 5, comment: "Quick and friendly" }] },
);

export const RatingResult = t.Object(
  {
    conversation_id: t.String({ format: "uuid" }),
    chat_id: t.String(),
    rating: t.Integer({ minimum: 1, maximum: 5 }),
    comment: Nullable(t.String()),
    created_at: t.String({ format: "date-time" }),
  },
  {
    title: "RatingResult",
    examples: [{ conversation_id: "9a8b7c6d-5e4f-4a3b-9c2d-1e0f2a3b4c5d", chat_id: "visitor-42", rating: 5, comment: "Quick and friendly", created_at: "2026-01-01T10:00:00.000Z" }],
  },
);

// What the routes validate and answer must stay what the domain takes and returns.
const sameAsDomain: [
  Same<typeof ReportSummary.static, SummaryRecord>, Same<typeof ReportSeries.static, SeriesRecord>, Same<typeof ReportHeatmap.static, HeatmapRecord>,
  Same<typeof RatingResult.static, RatingRecord>, Omit<typeof ReportQuery.static, "format"> extends ReportInput ? true : false,
  Omit<typeof SeriesQuery.static, "format"> extends SeriesInput ? true : false, Omit<typeof RatingRequest.static, "bot_id" | "widget_key"> extends RatingInput ? true : false,
] = [true, true, true, true, true, true, true];
void sameAsDomain;
