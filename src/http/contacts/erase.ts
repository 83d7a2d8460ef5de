// Erasure on request (a visitor's right to be forgotten) and each bot's retention period.
import { t } from "elysia";
import type { Services } from "../../services.ts";
import { userAuth } from "../auth/plugin.ts";
import { errors, Ok, ok, withExample } from "../envelope.ts";
import { feature } from "../feature.ts";
import { BotIdParams } from "../bots/model.ts";

const ContactIdParams = t.Object({ id: t.String({ format: "uuid", description: "Contact UUID" }) });

const Erased = withExample(
  t.Object({
    contact_id: t.String(),
    conversations: t.Integer({ description: "Conversations deleted with every message" }),
    messages: t.Integer(),
    files: t.Integer({ description: "Files deleted from the database and the file store" }),
  }),
  { contact_id: "5b7f2a4e-1c3d-4e5f-8a9b-0c1d2e3f4a5b", conversations: 1, messages: 12, files: 2 },
);

const Retention = withExample(
  t.Object({ retention_days: t.Union([t.Integer({ minimum: 1, maximum: 36500 }), t.Null()], { description: "Closed conversations older than this are deleted; null keeps them" }) }),
  { retention_days: 90 },
);

export const erasureRoutes = (services: Services) =>
  feature({ prefix: "/api", tags: ["Privacy"] })
    .use(userAuth(services))
    .post("/contacts/:id/erase", async ({ user, params }) => ok(await services.privacy.eraseContact(user, params.id)), {
      user: true,
      params: ContactIdParams,
      response: { 200: Ok(Erased, "Erased: nothing of the contact is left"), ...errors(400, 401, 403, 404) },
      detail: {
        summary: "Erase a contact and everything they sent (right to be forgotten)",
        description:
          "Owner only (an operator gets 403, a non-member 404). Deletes the contact, their conversations with every message, the files of those chats " +
          "(also from the file store), their pending updates in the outbox and the embedded update log, and delivery records. Not undoable. " +
          "Recorded without personal data (who, when, how much). See README \"Erasure\" for what JetStream keeps until it expires.",
      },
    })
    .get("/bots/:id/retention", async ({ user, params }) => ok(await services.privacy.retention(user, params.id)), {
      user: true,
      params: BotIdParams,
      response: { 200: Ok(Retention, "The bot's retention period"), ...errors(400, 401, 404) },
      detail: { summary: "The bot's retention period", description: "Any member may read it." },
    })
    .put("/bots/:id/retention", async ({ user, params, body }) => ok(await services.privacy.setRetention(user, params.id, body.retention_days)), {
      user: true,
      params: BotIdParams,
      body: Retention,
      response: { 200: Ok(Retention, "Saved; the hourly pass applies it"), ...errors(400, 401, 403, 404) },
      detail: {
        summary: "Set the bot's retention period",
        description: "Owner only. Conversations closed (status closed, unchanged since) more than retention_days days ago are deleted with their messages and files by a pass that runs hourly; null turns it off.",
      },
    });
