import { feature } from "./feature.ts";
import { randomUUID } from "node:crypto";
import type { Platform } from "../platform.ts";
import { authRoutes } from "./auth/routes.ts";
import { botRoutes } from "./bots/routes.ts";
import { channelRoutes } from "./channels/routes.ts";
import { formRoutes } from "./forms/routes.ts";
import { inboxRoutes } from "./inbox/routes.ts";
import { messageRoutes } from "./messages/routes.ts";
import { widgetRoutes } from "./widget/routes.ts";
import { runtimeRoutes } from "./runtime/routes.ts";
import { webhookRoutes } from "./webhooks/routes.ts";
import { pushRoutes } from "./push/routes.ts";
import { telegramRoutes } from "./telegram/routes.ts";
import { errorHandler } from "./errors.ts";
import { openApiDocs } from "./openapi.ts";
import { systemRoutes } from "./system/routes.ts";
import { publicCors } from "./cors.ts";
import { requestGuard } from "./guard.ts";
import { streamRoutes } from "./streams/routes.ts";
import { webRoutes } from "./web/routes.ts";
import { teamRoutes } from "./team/routes.ts";

export { MAX_BODY_BYTES } from "./guard.ts";

export interface AppState {
  draining: boolean;
}

export function createApp(platform: Platform, state: AppState = { draining: false }) {
  const log = platform.logger;
  return feature()
    .use(errorHandler(log))
    .onRequest(({ request, set }) => {
      set.headers["x-request-id"] = request.headers.get("x-request-id") || randomUUID();
    })
    .onAfterResponse({ as: "global" }, ({ request, set }) => {
      log.debug({ method: request.method, url: request.url, status: set.status, rid: set.headers["x-request-id"] }, "request");
    })
    .use(publicCors())
    .use(requestGuard(platform))
    .use(systemRoutes(platform, () => state.draining))
    .use(openApiDocs())
    .use(authRoutes(platform))
    .use(botRoutes(platform))
    .use(channelRoutes(platform))
    .use(teamRoutes(platform))
    .use(messageRoutes(platform))
    .use(widgetRoutes(platform))
    .use(formRoutes(platform))
    .use(inboxRoutes(platform))
    .use(runtimeRoutes(platform))
    .use(webhookRoutes(platform))
    .use(pushRoutes(platform))
    .use(telegramRoutes(platform))
    .use(streamRoutes(platform))
    .use(webRoutes(platform));
}

export type App = ReturnType<typeof createApp>;
