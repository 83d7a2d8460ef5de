import { t } from "elysia";
import type { Platform } from "../../platform.ts";
import { userAuth } from "../auth/plugin.ts";
import { errors, Ok, ok } from "../envelope.ts";
import { feature } from "../feature.ts";
import {
  Conversation, ConversationDetail, ConversationIdParams, ConversationMetaPatch, DetailQuery, InboxQuery, Message, ReplyRequest,
} from "./model.ts";
import { conversationDetail, listConversations, operatorReply, patchConversation } from "../../domain/inbox.ts";

export const inboxRoutes = (platform: Platform) =>
  feature({ prefix: "/api/inbox", tags: ["Inbox"] })
    .use(userAuth(platform))
    .get("", async ({ user, query }) => ok(await listConversations(platform, user.id, query)), {
      user: true,
      query: InboxQuery,
      response: { 200: Ok(t.Array(Conversation), "Up to limit conversations with their last message"), ...errors(400, 401, { 404: "bot_id names no bot of the user" }) },
      detail: { summary: "Conversations of the user's bots, newest activity first", description: "Filter by bot, status or text; page on with before = the last conversation id received." },
    })
    .get("/:id", async ({ user, params, query }) => ok(await conversationDetail(platform, user.id, params.id, query.before)), {
      user: true,
      params: ConversationIdParams,
      query: DetailQuery,
      response: { 200: Ok(ConversationDetail, "The conversation, its latest messages (oldest first) and contacts"), ...errors(400, 401, { 404: "No conversation with this id in the user's bots" }) },
      detail: { summary: "A conversation with its messages and contacts", description: "Page back through older messages with before = the smallest message_id received." },
    })
    .post("/:id", async ({ user, params, body }) => ok(await operatorReply(platform, user.id, params.id, body.text)), {
      user: true,
      params: ConversationIdParams,
      body: ReplyRequest,
      response: { 200: Ok(Message, "The operator's message as stored"), ...errors(400, 401, { 404: "No conversation with this id in the user's bots" }, 503) },
      detail: {
        summary: "Send a manual operator reply",
        description: "The visitor sees it in their channel and the bot gets it as an operator_message update.",
      },
    })
    .patch("/:id", async ({ user, params, body }) => ok(await patchConversation(platform, user.id, params.id, body)), {
      user: true,
      params: ConversationIdParams,
      body: ConversationMetaPatch,
      response: { 200: Ok(Conversation, "The conversation as it is now"), ...errors(400, 401, { 404: "No conversation with this id in the user's bots" }) },
      detail: { summary: "Change status and/or operator note", description: "Only the fields given change; other operators' open inboxes see the change live." },
    });
