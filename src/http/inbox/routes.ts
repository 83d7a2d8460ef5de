import { t } from "elysia";
import type { Platform } from "../../platform.ts";
import { userAuth } from "../auth/plugin.ts";
import { errors, Ok, ok } from "../envelope.ts";
import { feature } from "../feature.ts";
import {
  Conversation, ConversationDetail, ConversationIdParams, ConversationMetaPatch, DetailQuery, InboxQuery, Message, ReplyRequest,
} from "./model.ts";
import { operatorHandoff } from "../../domain/handoff.ts";
import { conversationDetail, listConversations, operatorReply, patchConversation } from "../../domain/inbox.ts";

export const inboxRoutes = (platform: Platform) =>
  feature({ prefix: "/api/inbox", tags: ["Inbox"] })
    .use(userAuth(platform))
    .get("", async ({ user, query }) => ok(await listConversations(platform, user.id, query)), {
      user: true,
      query: InboxQuery,
      response: { 200: Ok(t.Array(Conversation)), ...errors(400, 401, 404) },
      detail: { summary: "Conversations of the user's bots, newest activity first" },
    })
    .get("/:id", async ({ user, params, query }) => ok(await conversationDetail(platform, user.id, params.id, query.before)), {
      user: true,
      params: ConversationIdParams,
      query: DetailQuery,
      response: { 200: Ok(ConversationDetail), ...errors(400, 401, 404) },
      detail: { summary: "A conversation with its messages and contacts" },
    })
    .post("/:id", async ({ user, params, body }) => ok(await operatorReply(platform, user.id, params.id, body.text)), {
      user: true,
      params: ConversationIdParams,
      body: ReplyRequest,
      response: { 200: Ok(Message), ...errors(400, 401, 404, 503) },
      detail: { summary: "Send a manual operator reply" },
    })
    .post("/:id/takeover", async ({ user, params }) => ok(await operatorHandoff(platform, user.id, params.id, "human")), {
      user: true,
      params: ConversationIdParams,
      response: { 200: Ok(Conversation), ...errors(400, 401, 404) },
      detail: {
        summary: "Take the conversation over from the bot",
        description:
          "Sets handled_by to \"human\" (handed_over_by: you). While taken over, the visitor's messages, operator replies and button presses " +
          "reach the inbox but are not reported to the bot: its get-updates and webhook show nothing for this chat. Repeating it is harmless.",
      },
    })
    .post("/:id/release", async ({ user, params }) => ok(await operatorHandoff(platform, user.id, params.id, "bot")), {
      user: true,
      params: ConversationIdParams,
      response: { 200: Ok(Conversation), ...errors(400, 401, 404) },
      detail: {
        summary: "Give the conversation back to the bot",
        description: "Sets handled_by to \"bot\": the bot receives the conversation's updates again (from the next message on; nothing is replayed).",
      },
    })
    .patch("/:id", async ({ user, params, body }) => ok(await patchConversation(platform, user.id, params.id, body)), {
      user: true,
      params: ConversationIdParams,
      body: ConversationMetaPatch,
      response: { 200: Ok(Conversation), ...errors(400, 401, 404) },
      detail: { summary: "Change status and/or operator note" },
    });
