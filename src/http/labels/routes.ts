// Labels (per bot), private notes with mentions, and bulk changes in the inbox.
import { t } from "elysia";
import type { Services } from "../../services.ts";
import { userAuth } from "../auth/plugin.ts";
import { errors, Ok, ok, withExample } from "../envelope.ts";
import { feature } from "../feature.ts";
import { BotIdParams } from "../bots/model.ts";
import { ConversationIdParams, Message } from "../inbox/model.ts";
import { BulkRequest, BulkResult, Label, LabelParams, LabelRequest, Mention, MentionsQuery, NoteRequest } from "./model.ts";

const labelRoutes = (services: Services) =>
  feature({ prefix: "/api/bots", tags: ["Labels"] })
    .use(userAuth(services))
    .get("/:id/labels", async ({ user, params }) => ok(await services.workflow.labels(user, params.id)), {
      user: true,
      params: BotIdParams,
      response: { 200: Ok(t.Array(Label), "The bot's labels by name"), ...errors(400, 401, 404) },
      detail: { summary: "The bot's labels", description: "Any member. Conversations carry label names in `labels`." },
    })
    .post("/:id/labels", async ({ user, params, body }) => ok(await services.workflow.createLabel(user, params.id, body)), {
      user: true,
      params: BotIdParams,
      body: LabelRequest,
      response: { 200: Ok(Label, "The new label"), ...errors(400, 401, 403, 404, { 409: "The bot already has a label of that name" }) },
      detail: { summary: "Create a label", description: "Owner only (an operator gets 403). At most 100 labels per bot." },
    })
    .delete("/:id/labels/:label_id", async ({ user, params }) => ok(await services.workflow.removeLabel(user, params.id, params.label_id)), {
      user: true,
      params: LabelParams,
      response: { 200: Ok(withExample(t.Literal(true), true), "The label is gone"), ...errors(400, 401, 403, 404) },
      detail: {
        summary: "Delete a label",
        description: "Owner only. Its name is taken off every conversation of the bot (live views get `conversation_updated`).",
      },
    });

const inboxWorkflowRoutes = (services: Services) =>
  feature({ prefix: "/api/inbox", tags: ["Inbox"] })
    .use(userAuth(services))
    .post("/bulk", async ({ user, body }) => ok(await services.workflow.bulk(user, body)), {
      user: true,
      body: BulkRequest,
      response: { 200: Ok(t.Array(BulkResult), "One answer per distinct id, in the order given"), ...errors(400, 401) },
      detail: {
        summary: "Change status, assignee and labels of many conversations",
        description:
          "Each id is checked on its own: a conversation of a bot the caller is not a member of answers `{ok: false, error}` " +
          "(not found), as does an assignee who is not a member of that conversation's bot or a label that bot does not have. " +
          "At most 100 ids per request.",
      },
    })
    .post("/:id/notes", async ({ user, params, body }) => ok(await services.workflow.note(user, params.id, body)), {
      user: true,
      params: ConversationIdParams,
      body: NoteRequest,
      response: { 200: Ok(Message, "The note, a message with `private: true`"), ...errors(400, 401, 404) },
      detail: {
        summary: "Write a private note in the conversation",
        description:
          "Shown to the bot's members only: never in the widget's history or stream, get-updates, webhooks, the Telegram facade, " +
          "channel callbacks or e-mail replies. `mentions` (members of the bot; 400 otherwise) are notified by Web Push and live " +
          "(a `mentioned` event on their inbox stream), and listed in GET /api/me/mentions.",
      },
    });

const mentionRoutes = (services: Services) =>
  feature({ prefix: "/api/me", tags: ["Inbox"] })
    .use(userAuth(services))
    .get("/mentions", async ({ user, query }) => ok(await services.workflow.mentions(user, query)), {
      user: true,
      query: MentionsQuery,
      response: { 200: Ok(t.Array(Mention), "Newest first"), ...errors(400, 401, 404) },
      detail: {
        summary: "Private notes that mention the caller",
        description: "On bots the caller is still a member of; page with `before` = the last mention's id.",
      },
    });

export const labelNoteRoutes = (services: Services) =>
  feature().use(labelRoutes(services)).use(inboxWorkflowRoutes(services)).use(mentionRoutes(services));
