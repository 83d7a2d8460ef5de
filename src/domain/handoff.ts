// Handoff between the bot and a human: while a conversation is taken over, its incoming
// messages, operator replies and button presses are not reported to the bot (see
// reportsToBot in actors/conversation.ts); they still reach the inbox.
import type { DbBot } from "../db/bots.ts";
import { findConversationByChat } from "../db/conversations.ts";
import { notFound } from "../core/errors.ts";
import type { Conversation } from "../core/records.ts";
import { setHandledBy, type ConversationDeps } from "./conversations.ts";
import { requireMemberConversation } from "./members.ts";
import { assign } from "./inbox_state.ts";
import { withRelations } from "./inbox_view.ts";

/**
 * A member takes the conversation over (handled_by "human"), which also assigns it to them,
 * or gives it back to the bot ("bot"; the assignment stays).
 */
export async function operatorHandoff(deps: ConversationDeps, userId: string, conversationId: string, to: "human" | "bot"): Promise<Conversation> {
  const row = await requireMemberConversation(deps.db, userId, conversationId);
  if (to === "human") await assign(deps, row, userId);
  const after = await setHandledBy(deps, row, to, to === "human" ? userId : null);
  return (await withRelations(deps, [after]))[0]!;
}

/** The bot hands a chat to a human itself (the operators see it as taken over, by nobody in particular). */
export async function botHandoff(deps: ConversationDeps, bot: DbBot, chatId: string): Promise<{ chat_id: string; handled_by: "human" }> {
  const row = await findConversationByChat(deps.db, bot.id, chatId);
  if (!row) throw notFound("chat");
  if (row.handled_by !== "human") await setHandledBy(deps, row, "human", null);
  return { chat_id: row.chat_id, handled_by: "human" };
}

