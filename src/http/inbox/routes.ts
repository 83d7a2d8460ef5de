import { t } from "elysia";
import type { Services } from "../../services.ts";
import { userAuth } from "../auth/plugin.ts";
import { errors, Ok, ok, withExample } from "../envelope.ts";
import { feature } from "../feature.ts";
import {
  Conversation, ConversationDetail, ConversationIdParams, ConversationMetaPatch, CountsQuery, DetailQuery, InboxConversation, InboxCounts, InboxQuery,
  Message, ReadRequest, ReadResult, ReplyRequest,
} from "./model.ts";

export const inboxRoutes = (services: Services) =>
  feature({ prefix: "/api/inbox", tags: ["Inbox"] })
    .use(userAuth(services))
    .get("", async ({ user, query }) => ok(await services.inbox.list(user, query)), {
      user: true,
      query: InboxQuery,
      response: { 200: Ok(t.Array(InboxConversation), "Up to limit conversations with their last message, assignee and unread count"), ...errors(400, 401, 404) },
      detail: {
        summary: "Conversations of the user's bots, newest activity first",
        description:
          "Every bot the caller is a member of (owner or operator). Filter by `bot_id`, `status`, `assignee` " +
          "(`me`, `unassigned`, `all`) and search with `q`; page with `before` = the last conversation's id until a page " +
          "comes back empty. Each conversation has its `assignee` and the caller's `unread_count`.",
      },
    })
    .get("/counts", async ({ user, query }) => ok(await services.inbox.counts(user, query.bot_id, query.assignee)), {
      user: true,
      query: CountsQuery,
      response: { 200: Ok(InboxCounts, "Conversations per status tab and unread counts"), ...errors(400, 401, 404) },
      detail: {
        summary: "Counts for the status tabs",
        description:
          "Conversations per status (new, open, waiting, closed, all) over the caller's bots (or one `bot_id`), with the " +
          "same `assignee` filter as the list, and how many of them have unread incoming messages for the caller.",
      },
    })
    .get("/:id", async ({ user, params, query }) => ok(await services.inbox.detail(user, params.id, query.before)), {
      user: true,
      params: ConversationIdParams,
      query: DetailQuery,
      response: { 200: Ok(ConversationDetail, "The conversation, its latest messages (oldest first) and contacts"), ...errors(400, 401, 404) },
      detail: {
        summary: "A conversation with its messages and contacts",
        description:
          `The newest messages (page older ones with \`before\` = the oldest message_id shown), everyone who wrote, the main ` +
          "contact's other conversations (`contact_conversations`) and the page the visitor last wrote from (`page`).",
      },
    })
    .post("/:id", async ({ user, params, body }) => ok(await services.inbox.reply(user, params.id, body.text, body.attachments)), {
      user: true,
      params: ConversationIdParams,
      body: ReplyRequest,
      response: { 200: Ok(Message, "The operator's message as stored"), ...errors(400, 401, 404, 503) },
      detail: {
        summary: "Send a manual operator reply",
        description: "The visitor sees it in their channel; the bot gets it as an operator_message update unless the conversation is taken over.",
      },
    })
    .post("/:id/takeover", async ({ user, params }) => ok(await services.inbox.handoff(user, params.id, "human")), {
      user: true,
      params: ConversationIdParams,
      response: { 200: Ok(Conversation, "The conversation, now handled by a human"), ...errors(400, 401, 404) },
      detail: {
        summary: "Take the conversation over from the bot",
        description:
          "Sets handled_by to \"human\" (handed_over_by: you) and assigns the conversation to you. While taken over, the visitor's messages, operator replies and button presses " +
          "reach the inbox but are not reported to the bot: its get-updates and webhook show nothing for this chat. Repeating it is harmless.",
      },
    })
    .post("/:id/release", async ({ user, params }) => ok(await services.inbox.handoff(user, params.id, "bot")), {
      user: true,
      params: ConversationIdParams,
      response: { 200: Ok(Conversation, "The conversation, handled by the bot again"), ...errors(400, 401, 404) },
      detail: {
        summary: "Give the conversation back to the bot",
        description: "Sets handled_by to \"bot\": the bot receives the conversation's updates again (from the next message on; nothing is replayed).",
      },
    })
    .patch("/:id", async ({ user, params, body }) => ok(await services.inbox.patch(user, params.id, body)), {
      user: true,
      params: ConversationIdParams,
      body: ConversationMetaPatch,
      response: { 200: Ok(InboxConversation, "The conversation as it is now"), ...errors(400, 401, 404) },
      detail: {
        summary: "Change status, operator note and/or assignee",
        description:
          "`assignee_id` must be a member of the bot (400 otherwise); null unassigns. Live views get a " +
          "`conversation_updated` event; after an assignment its conversation carries `assignee`.",
      },
    })
    .post(
      "/:id/read",
      async ({ user, params, body }) =>
        ok(await services.inbox.read(user, params.id, body?.message_id === undefined ? undefined : Number(body.message_id))),
      {
        user: true,
        params: ConversationIdParams,
        body: t.Optional(ReadRequest),
        response: { 200: Ok(ReadResult, "What the caller has read now"), ...errors(400, 401, 404) },
        detail: {
          summary: "Mark the conversation read for the caller",
          description:
            "Moves the caller's read marker to `message_id` (default: the newest message); it never moves back. The " +
            "caller's other tabs and devices get a `conversation_read` event on the inbox stream. Other members' markers are their own.",
        },
      },
    )
    .post(
      "/:id/typing",
      async ({ user, params }) => ok(await services.inbox.typing(user, params.id)),
      {
        user: true,
        params: ConversationIdParams,
        response: { 200: Ok(withExample(t.Literal(true), true), "The visitor sees the operator typing"), ...errors(400, 401, 404, 429) },
        detail: {
          summary: "Tell the visitor an operator is typing",
          description: "The chat's widget stream gets an `operator_typing` event (shown for about 5 s); nothing is stored.",
        },
      },
    );
