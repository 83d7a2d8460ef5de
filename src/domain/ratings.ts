// Satisfaction: a visitor rates a closed conversation 1..5, once. The rating shows in the
// conversation in the cabinet and in the reports (the roll-up's trigger copies it).
import { conflict, notFound } from "../core/errors.ts";
import type { DbBot } from "../db/bots.ts";
import { findConversationByChat } from "../db/conversations.ts";
import type { Db } from "../db/driver.ts";
import { insertRating } from "../db/ratings.ts";
import { visitorChat, type IdentityDeps } from "./identity.ts";

export interface RatingRequest {
  chat_id: string;
  rating: number;
  comment?: string;
  /** A verified user's chat is rated only with its hash, as it is read and written. */
  user_id?: string;
  user_hash?: string;
}

export interface RatingResult {
  conversation_id: string;
  chat_id: string;
  rating: number;
  comment: string | null;
  created_at: string;
}

export async function rateConversation(deps: IdentityDeps, bot: DbBot, body: RatingRequest): Promise<RatingResult> {
  const { chatId } = await visitorChat(deps, bot.id, body);
  const conversation = await findConversationByChat(deps.db, bot.id, chatId ?? body.chat_id);
  if (!conversation) throw notFound("conversation");
  if (conversation.status !== "closed") throw conflict("the conversation is not closed yet: it can be rated once it is closed", "not_closed");
  const comment = body.comment?.trim() ? body.comment.trim() : null;
  const stored = await insertRating(deps.db, bot.id, conversation.id, body.rating, comment);
  if (!stored) throw conflict("this conversation has already been rated", "already_rated");
  return {
    conversation_id: conversation.id, chat_id: conversation.chat_id, rating: stored.rating, comment: stored.comment,
    created_at: new Date(stored.created_at).toISOString(),
  };
}
