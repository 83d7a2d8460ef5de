import type { Services } from "../../services.ts";
import { errors, Ok, ok } from "../envelope.ts";
import { feature } from "../feature.ts";
import { WidgetConfigQuery, WidgetConfigResult } from "./model.ts";

export const widgetRoutes = (services: Services) =>
  feature({ prefix: "/api/widget", tags: ["Widget"] }).get("/config", async ({ query, request }) =>
    ok(await services.public.widget(query.widget_key, request.headers.get("origin"))), {
    query: WidgetConfigQuery,
    response: { 200: Ok(WidgetConfigResult, "How the widget looks and greets"), ...errors(400, { 403: "The widget channel is disabled or the page's Origin is not allowed" }, { 404: "No bot with this widget_key" }, 429) },
    detail: { summary: "Public widget configuration", description: "Read by the embedded widget script at start-up with the public widget_key; no token." },
  });
