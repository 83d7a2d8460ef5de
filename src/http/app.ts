import { feature } from "./feature.ts";
import { accessLog } from "./access-log.ts";
import type { Services } from "../services.ts";
import { authRoutes } from "./auth/routes.ts";
import { botRoutes } from "./bots/routes.ts";
import { channelRoutes } from "./channels/routes.ts";
import { emailChannelRoutes } from "./channels/email.ts";
import { passwordResetRoutes } from "./auth/reset.ts";
import { formRoutes } from "./forms/routes.ts";
import { inboxRoutes } from "./inbox/routes.ts";
import { messageRoutes } from "./messages/routes.ts";
import { widgetRoutes } from "./widget/routes.ts";
import { identityRoutes } from "./widget/identity.ts";
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
import { workflowRoutes } from "./team/workflow.ts";
import { fileRoutes } from "./files/routes.ts";
import { labelNoteRoutes } from "./labels/routes.ts";
import { contactRoutes } from "./contacts/routes.ts";
import { integrationRoutes } from "./integrations/routes.ts";
import { ratingRoutes, reportRoutes } from "./reports/routes.ts";
import { erasureRoutes } from "./contacts/erase.ts";

export { MAX_BODY_BYTES } from "./guard.ts";

export interface AppState {
  draining: boolean;
}

export function createApp(services: Services, state: AppState = { draining: false }) {
  const log = services.log;
  return feature()
    .use(errorHandler(log))
    .use(accessLog(log, services.system.metrics))
    .use(publicCors())
    .use(requestGuard(services))
    .use(systemRoutes(services, () => state.draining))
    .use(openApiDocs())
    .use(authRoutes(services))
    .use(botRoutes(services))
    .use(channelRoutes(services))
    .use(emailChannelRoutes(services))
    .use(passwordResetRoutes(services))
    .use(teamRoutes(services))
    .use(fileRoutes(services))
    .use(ratingRoutes(services))
    .use(reportRoutes(services))
    .use(messageRoutes(services))
    .use(widgetRoutes(services))
    .use(identityRoutes(services))
    .use(formRoutes(services))
    .use(labelNoteRoutes(services))
    .use(contactRoutes(services))
    .use(inboxRoutes(services))
    .use(runtimeRoutes(services))
    .use(webhookRoutes(services))
    .use(pushRoutes(services))
    .use(telegramRoutes(services))
    .use(streamRoutes(services))
    .use(integrationRoutes(services))
    .use(webRoutes(services))
    .use(workflowRoutes(services))
    .use(erasureRoutes(services));
}

export type App = ReturnType<typeof createApp>;
