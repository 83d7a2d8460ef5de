import type { Platform } from "../../platform.ts";
import { errors, Ok, ok } from "../envelope.ts";
import { clientIp } from "../client.ts";
import { feature } from "../feature.ts";
import { AcceptedMessage } from "../messages/model.ts";
import { FormSubmission } from "./model.ts";
import { acceptFormSubmission } from "./service.ts";

export const formRoutes = (platform: Platform) =>
  feature({ prefix: "/api/integrations/sitecms", tags: ["site-form integration"] }).post(
    "/forms-plugin",
    async ({ body, request }) => ok(await acceptFormSubmission(platform, body, clientIp(request))),
    {
      body: FormSubmission,
      response: { 200: Ok(AcceptedMessage), ...errors(400, 403, 404, 413, 429) },
      detail: { summary: "Accept a form submission as a conversation message" },
    },
  );
