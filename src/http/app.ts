import { feature } from "./feature.ts";
import { Elysia } from "elysia";
import { randomUUID } from "node:crypto";
import { AppError } from "../errors.ts";
import type { Platform } from "../platform.ts";
import { authRoutes } from "./auth/routes.ts";
import { botRoutes } from "./bots/routes.ts";
import { channelRoutes } from "./channels/routes.ts";
import { formRoutes } from "./forms/routes.ts";
import { inboxRoutes } from "./inbox/routes.ts";
import { messageRoutes } from "./messages/routes.ts";
import { widgetRoutes } from "./widget/routes.ts";
import { errorHandler } from "./errors.ts";
import { openApiDocs } from "./openapi.ts";
import { systemRoutes } from "./system/routes.ts";

/** DESIGN §7: bodies above 64 KiB are refused with 413 before they are read. */
export const MAX_BODY_BYTES = 64 * 1024;

const tooLarge = () => new AppError("payload_too_large", `request body exceeds ${MAX_BODY_BYTES} bytes`);

export interface AppState {
  draining: boolean;
}

export function createApp(platform: Platform, state: AppState = { draining: false }) {
  const log = platform.logger;
  return feature()
    .use(errorHandler(log))
    .onRequest(({ request, set }) => {
      const length = Number(request.headers.get("content-length") ?? 0);
      if (length > MAX_BODY_BYTES) throw tooLarge();
      set.headers["x-request-id"] = request.headers.get("x-request-id") || randomUUID();
    })
    .onParse({ as: "global" }, async ({ request, contentType }) => {
      // Bodies without Content-Length (chunked) are measured here instead.
      if (!contentType?.startsWith("application/json")) return;
      const bytes = await request.arrayBuffer();
      if (bytes.byteLength > MAX_BODY_BYTES) throw tooLarge();
      const text = new TextDecoder().decode(bytes);
      if (text.trim() === "") return {};
      try {
        return JSON.parse(text);
      } catch {
        throw new AppError("bad_request", "malformed request body: expected valid JSON");
      }
    })
    .onAfterResponse({ as: "global" }, ({ request, set }) => {
      log.debug({ method: request.method, url: request.url, status: set.status, rid: set.headers["x-request-id"] }, "request");
    })
    .use(systemRoutes(platform, () => state.draining))
    .use(openApiDocs())
    .use(authRoutes(platform))
    .use(botRoutes(platform))
    .use(channelRoutes(platform))
    .use(messageRoutes(platform))
    .use(widgetRoutes(platform))
    .use(formRoutes(platform))
    .use(inboxRoutes(platform));
}

export type App = ReturnType<typeof createApp>;
