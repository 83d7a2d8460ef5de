// Reports for members of a bot (JSON, or CSV with format=csv) and the visitor's rating.
import type { Services } from "../../services.ts";
import { userAuth } from "../auth/plugin.ts";
import { errors, Ok, ok } from "../envelope.ts";
import { feature } from "../feature.ts";
import { publicAccess } from "../public.ts";
import { RatingRequest, RatingResult, ReportHeatmap, ReportQuery, ReportSeries, ReportSummary, SeriesQuery } from "./model.ts";

/** Elysia types a handler's answer as the 200 model or as a Response, never one of both: the CSV answer passes as the model. */
const csv = (name: string, body: string) =>
  new Response(body, { headers: { "content-type": "text/csv; charset=utf-8", "content-disposition": `attachment; filename="${name}.csv"` } }) as never;

const SCOPE =
  "Conversations opened (created) in [from, to) of the bot (bot_id: the caller must be a member, else 404) or of every bot the caller belongs to, " +
  "optionally one channel. Bad from/to/tz is 400. With format=csv the same figures come as text/csv.";

export const reportRoutes = (services: Services) =>
  feature({ prefix: "/api/reports", tags: ["Reports"] })
    .use(userAuth(services))
    .get("/summary", async ({ user, query }) => {
      const summary = await services.reports.summary(user, query);
      return query.format === "csv" ? csv("summary", services.reports.csv.summary(summary)) : ok(summary);
    }, {
      user: true,
      query: ReportQuery,
      response: { 200: Ok(ReportSummary, "Volume, response and resolution times, containment, handoffs and satisfaction"), ...errors(400, 401, 404) },
      detail: {
        summary: "Summary of a range",
        description:
          `${SCOPE} First response runs from the first incoming message to the first outgoing one (bot or operator) after it; resolution ` +
          "from the first incoming message to the first move to closed; medians and 90th percentiles in seconds (interpolated, rounded). " +
          "closed counts the opened conversations closed at least once; bot_containment and handoff_rate are shares of those (null when none); " +
          "csat averages the ratings of the opened conversations.",
      },
    })
    .get("/series", async ({ user, query }) => {
      const series = await services.reports.series(user, query);
      return query.format === "csv" ? csv(`${query.metric}-by-${query.group ?? "day"}`, services.reports.csv.series(series)) : ok(series);
    }, {
      user: true,
      query: SeriesQuery,
      response: { 200: Ok(ReportSeries, "One point per bucket (and key) that has conversations, oldest first"), ...errors(400, 401, 404) },
      detail: {
        summary: "A metric by day or hour",
        description:
          `${SCOPE} Buckets are the days or hours of tz (a DST day has 23 or 25 hours); conversations are counted in the bucket they were opened in. ` +
          "Buckets without conversations (or, for the time metrics, without a response or close) are left out.",
      },
    })
    .get("/heatmap", async ({ user, query }) => {
      const heatmap = await services.reports.heatmap(user, query);
      return query.format === "csv" ? csv("heatmap", services.reports.csv.heatmap(heatmap)) : ok(heatmap);
    }, {
      user: true,
      query: ReportQuery,
      response: { 200: Ok(ReportHeatmap, "Incoming messages by weekday (Monday first) and hour of tz"), ...errors(400, 401, 404) },
      detail: {
        summary: "When visitors write: weekday × hour",
        description:
          "Incoming messages sent in [from, to) (counted by quarter hour, so the edges of a range given as times round to a quarter hour), " +
          "of the bot or of every bot the caller belongs to, optionally one channel. With format=csv: 7 rows of 24 hours.",
      },
    });

export const ratingRoutes = (services: Services) =>
  feature({ prefix: "/api/messages", tags: ["Messages"] })
    .use(publicAccess(services))
    .post("/rating", async ({ publicBot, body }) => ok(await services.public.rate(publicBot, body)), {
      publicBot: { from: "body", limit: true, origin: true },
      body: RatingRequest,
      response: {
        200: Ok(RatingResult, "Stored: the conversation and the reports show it"),
        ...errors(400, { 403: "The page's Origin is not among the widget's allowed origins" }, { 404: "No such bot or chat" },
          { 409: "The conversation is not closed, or it was already rated" }, 429),
      },
      detail: {
        summary: "Rate a closed conversation (satisfaction, 1–5)",
        description: "Public like POST /api/messages (bot_id or widget_key, Origin and rate limits). Once per conversation, and only while it is closed.",
      },
    });
