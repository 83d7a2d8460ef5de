import type { Platform } from "../../platform.ts";
import { errors, Ok, ok } from "../envelope.ts";
import { feature } from "../feature.ts";
import { WidgetConfigQuery, WidgetConfigResult } from "./model.ts";
import { widgetConfig } from "./service.ts";

export const widgetRoutes = (platform: Platform) =>
  feature({ prefix: "/api/widget", tags: ["Widget"] }).get("/config", async ({ query, request }) =>
    ok(await widgetConfig(platform, query.widget_key, request.headers.get("origin"))), {
    query: WidgetConfigQuery,
    response: { 200: Ok(WidgetConfigResult), ...errors(400, 403, 404, 429) },
    detail: { summary: "Public widget configuration" },
  });
