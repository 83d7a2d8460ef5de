import type { Platform } from "../../platform.ts";
import { errors, Ok, ok } from "../envelope.ts";
import { feature } from "../feature.ts";
import { WidgetConfigQuery, WidgetConfigResult } from "./model.ts";
import { widgetConfig } from "./service.ts";

export const widgetRoutes = (platform: Platform) =>
  feature({ prefix: "/api/widget", tags: ["Widget"] }).get("/config", async ({ query, request }) =>
    ok(await widgetConfig(platform, query.widget_key, request.headers.get("origin"))), {
    query: WidgetConfigQuery,
    response: { 200: Ok(WidgetConfigResult, "How the widget looks and greets"), ...errors(400, { 403: "The widget channel is disabled or the page's Origin is not allowed" }, { 404: "No bot with this widget_key" }, 429) },
    detail: { summary: "Public widget configuration", description: "Read by the embedded widget script at start-up with the public widget_key; no token." },
  });
