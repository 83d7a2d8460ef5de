import type { Platform } from "../../platform.ts";
import { errors, Ok, ok } from "../envelope.ts";
import { publicAccess } from "../public.ts";
import { feature } from "../feature.ts";
import { AcceptedMessage } from "../messages/model.ts";
import { FormSubmission } from "./model.ts";
import { acceptFormSubmission } from "../../domain/intake.ts";

export const formRoutes = (platform: Platform) =>
  feature({ prefix: "/api/integrations/sitecms", tags: ["site-form integration"] }).use(publicAccess(platform)).post(
    "/forms-plugin",
    async ({ publicBot, body }) => ok(await acceptFormSubmission(platform, publicBot, body)),
    {
      publicBot: { from: "integration_key", limit: true },
      body: FormSubmission,
      response: { 200: Ok(AcceptedMessage), ...errors(400, 403, 404, 413, 429) },
      detail: { summary: "Accept a form submission as a conversation message" },
    },
  );
