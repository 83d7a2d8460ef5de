// Private notes: messages among a bot's members inside a conversation. A note is stored as a
// message with private = true; it is written here and nowhere else, so it never gets an
// update (get-updates, webhooks, the Telegram facade), a channel callback or a mail, and the
// visitor's history and stream leave it out (db/messages.ts, db/streams.ts). Members who are
// mentioned are told live (their inbox stream), by push (the push worker reads the note's
// metadata.mentions) and in GET /api/me/mentions.
import { badRequest, notFound } from "../core/errors.ts";
import type { Effects, Mention, UserEvent } from "../core/events.ts";
import type { Message } from "../core/records.ts";
import { userEventsSubject } from "../core/subjects.ts";
import type { EventBus } from "../bus/bus.ts";
import { nextBotNumbers } from "../db/counters.ts";
import type { Db } from "../db/driver.ts";
import { touchConversationUpdatedAt } from "../db/inbox_state.ts";
import { listMembers } from "../db/members.ts";
import { findMention, insertMentions, insertNote, listMentions, type DbMention } from "../db/notes.ts";
import { findUserById } from "../db/users.ts";
import { toMessage } from "../db/view.ts";
import { operatorName } from "./inbox.ts";
import { withRelations } from "./inbox_view.ts";
import { requireMemberConversation } from "./members.ts";

/** Why: a note that names more people than a bot can have members is a mistake, not a note. */
export const MAX_MENTIONS_PER_NOTE = 50;
/** Mentions per page of GET /api/me/mentions. */
export const MENTIONS_DEFAULT_LIMIT = 50;
export const MENTIONS_MAX_LIMIT = 200;

type NoteDeps = { db: Db; bus: EventBus; dispatch(effects: Effects): Promise<void> };

export async function addNote(
  deps: NoteDeps, userId: string, conversationId: string, input: { text: string; mentions?: string[] },
): Promise<Message> {
  const conversation = await requireMemberConversation(deps.db, userId, conversationId);
  if (!input.text.trim()) throw badRequest("text: a note must not be empty");
  const mentioned = [...new Set(input.mentions ?? [])];
  if (mentioned.length > MAX_MENTIONS_PER_NOTE) throw badRequest(`mentions: at most ${MAX_MENTIONS_PER_NOTE}`);
  const members = new Map((await listMembers(deps.db, conversation.bot_id)).map((m) => [m.user_id, m]));
  const outsider = mentioned.find((id) => !members.has(id));
  if (outsider !== undefined) throw badRequest(`mentions: ${outsider} is not a member of this bot`);
  const author = await findUserById(deps.db, userId);
  const metadata = { operator_name: operatorName(author?.email), author_id: userId, mentions: mentioned };
  const { note, row, mentionIds } = await deps.db.transaction(async (tx) => {
    const { last_message_id } = await nextBotNumbers(tx, conversation.bot_id, ["last_message_id"]);
    const note = await insertNote(tx, {
      botId: conversation.bot_id, ownerId: conversation.owner_id, conversationId: conversation.id, messageId: last_message_id,
      text: input.text, metadata,
    });
    const mentionIds = await insertMentions(tx, { userIds: mentioned, botId: conversation.bot_id, conversationId: conversation.id, messageId: note.id, byUserId: userId });
    // A new updated_at puts the note into the inbox stream's replay after a reconnect.
    return { note, mentionIds, row: await touchConversationUpdatedAt(tx, conversation.id) };
  });
  const message = toMessage(note, row);
  const [card] = await withRelations(deps, [row]);
  // message_created reaches the members' inbox streams and the push worker (which notifies
  // only the mentioned); the widget stream and every delivery path skip private messages.
  await deps.dispatch({ events: [{ kind: "message_created", owner_id: row.owner_id, bot_id: row.bot_id, conversation: card!, message }], updates: [] });
  const by = author ? { user_id: author.id, email: author.email } : null;
  await Promise.all(mentionIds.map(({ id, user_id: mentionedId }) => {
    const mention: Mention = {
      id, bot_id: row.bot_id, conversation_id: row.id, chat_id: row.chat_id, message_id: note.id, text: note.text, by,
      created_at: note.created_at.toISOString(),
    };
    const event: UserEvent = { kind: "mentioned", user_id: mentionedId, bot_id: row.bot_id, conversation_id: row.id, mention };
    return deps.bus.publish(userEventsSubject(mentionedId), event);
  }));
  return message;
}

const toMention = (row: DbMention): Mention => ({
  id: row.id, bot_id: row.bot_id, conversation_id: row.conversation_id, chat_id: row.chat_id, message_id: row.message_id, text: row.text,
  by: row.by_user_id && row.by_email ? { user_id: row.by_user_id, email: row.by_email } : null, created_at: row.created_at.toISOString(),
});

export async function mentionsOf(deps: { db: Db }, userId: string, query: { limit?: number; before?: string }): Promise<Mention[]> {
  let before = null;
  if (query.before) {
    before = (await findMention(deps.db, userId, query.before)) ?? null;
    if (!before) throw notFound("mention given as before");
    before = { at: before.created_at, id: before.id };
  }
  const rows = await listMentions(deps.db, userId, Math.min(query.limit ?? MENTIONS_DEFAULT_LIMIT, MENTIONS_MAX_LIMIT), before);
  return rows.map(toMention);
}
