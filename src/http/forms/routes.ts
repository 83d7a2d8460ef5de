import type { Services } from "../../services.ts";
import { errors, Ok, ok } from "../envelope.ts";
import { publicAccess, signedRequest } from "../public.ts";
import { feature } from "../feature.ts";
import { AcceptedMessage } from "../messages/model.ts";
import { FormSubmission } from "./model.ts";

export const formRoutes = (services: Services) =>
  feature({ prefix: "/api/integrations/sitecms", tags: ["site-form integration"] }).use(publicAccess(services)).post(
    "/forms-plugin",
    async ({ publicBot, body, request }) => ok(await services.public.submitForm(publicBot, body, await signedRequest(request))),
    {
      publicBot: { from: "integration_key", limit: true },
      body: FormSubmission,
      response: { 200: Ok(AcceptedMessage, "Stored as a message of a new or the contact's conversation"), ...errors(400, { 401: "The site-form channel requires signed requests and this one is not (see POST /api/messages)" }, { 403: "The site-form channel is disabled" }, { 404: "No bot with this integration_key" }, 413, 429) },
      detail: {
        summary: "Accept a form submission as a conversation message",
        description: "A site's form plugin posts here with the bot's integration_key; the fields become the message text and the contact's e-mail, phone and name are kept.",
      },
    },
  );
