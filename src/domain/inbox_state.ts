// Per-user inbox state: assignment, read markers, status counts and the operator's typing
// notice. Small use cases beside the conversation write path, which they never enter.
import { badRequest } from "../core/errors.ts";
import type { Effects, OperatorTypingEvent, UserEvent } from "../core/events.ts";
import { STATUSES, type Status } from "../core/records.ts";
import { eventSubject, userEventsSubject } from "../core/subjects.ts";
import type { EventBus } from "../bus/bus.ts";
import type { DbConversation } from "../db/conversations.ts";
import type { Db } from "../db/driver.ts";
import { findMember } from "../db/members.ts";
import {
  markRead, newestMessageId, setAssignee, statusCounts, touchConversationUpdatedAt, unreadCounts, type AssigneeFilter,
} from "../db/inbox_state.ts";
import { assigneesOf, withRelations } from "./inbox_view.ts";
import { requireMember, requireMemberConversation } from "./members.ts";

type StateDeps = { db: Db; dispatch(effects: Effects): Promise<void> };

/** The assignee must be a member of the conversation's bot (400 otherwise: the id is the caller's mistake). */
export async function checkAssignable(db: Db, conversation: DbConversation, assigneeId: string | null): Promise<void> {
  if (assigneeId !== null && !(await findMember(db, conversation.bot_id, assigneeId))) {
    throw badRequest("assignee_id: not a member of this bot");
  }
}

/**
 * Assigns the conversation (null: unassigns) and tells live views with a
 * conversation_updated whose snapshot carries `assignee`. Taking a conversation over (the
 * handoff) is meant to assign it to the operator through this function.
 */
export async function assign(deps: StateDeps, conversation: DbConversation, assigneeId: string | null): Promise<DbConversation> {
  await checkAssignable(deps.db, conversation, assigneeId);
  const row = await deps.db.transaction(async (tx) => {
    await setAssignee(tx, conversation.id, conversation.bot_id, assigneeId);
    // A new updated_at puts the change into the inbox stream's replay after a reconnect.
    return touchConversationUpdatedAt(tx, conversation.id);
  });
  const [[card], assignees] = await Promise.all([withRelations(deps, [row]), assigneesOf(deps.db, [row.id])]);
  const snapshot = { ...card!, assignee: assignees.get(row.id) ?? null };
  await deps.dispatch({ events: [{ kind: "conversation_updated", owner_id: row.owner_id, bot_id: row.bot_id, conversation: snapshot }], updates: [] });
  return row;
}

/**
 * Moves the user's read marker to `messageId` (default: the newest message) and tells the
 * user's other tabs and devices. Returns what is still unread after it.
 */
export async function markConversationRead(
  deps: { db: Db; bus: EventBus }, userId: string, conversationId: string, messageId: number | undefined,
): Promise<{ conversation_id: string; unread_count: number }> {
  const row = await requireMemberConversation(deps.db, userId, conversationId);
  // Never past the newest message: a marker ahead of it would hide messages not yet written.
  const newest = await newestMessageId(deps.db, row.id);
  await markRead(deps.db, userId, row.id, Math.min(messageId ?? newest, newest));
  const unread = (await unreadCounts(deps.db, userId, [row.id])).get(row.id) ?? 0;
  const event: UserEvent = { kind: "conversation_read", user_id: userId, bot_id: row.bot_id, conversation_id: row.id, unread_count: unread };
  await deps.bus.publish(userEventsSubject(userId), event);
  return { conversation_id: row.id, unread_count: unread };
}

export type Counts = Record<Status | "all", number>;

/** The status tabs: conversations per status, and how many of them have unread messages. */
export async function inboxCounts(
  db: Db, userId: string, botId: string | undefined, assignee: AssigneeFilter = "all",
): Promise<{ status: Counts; unread: Counts }> {
  if (botId) await requireMember(db, userId, botId);
  const zero = (): Counts => ({ new: 0, open: 0, waiting: 0, closed: 0, all: 0 });
  const status = zero();
  const unread = zero();
  for (const row of await statusCounts(db, userId, botId ?? null, assignee)) {
    if (!(STATUSES as readonly string[]).includes(row.status)) continue;
    status[row.status] = row.total;
    unread[row.status] = row.unread;
    status.all += row.total;
    unread.all += row.unread;
  }
  return { status, unread };
}

/** The widget of that chat shows "typing…" for a few seconds; nothing is stored. */
export async function operatorTyping(deps: { db: Db; bus: EventBus }, userId: string, conversationId: string): Promise<true> {
  const row = await requireMemberConversation(deps.db, userId, conversationId);
  const event: OperatorTypingEvent = {
    kind: "operator_typing", owner_id: row.owner_id, bot_id: row.bot_id, conversation_id: row.id, chat_id: row.chat_id, channel: row.channel, user_id: userId,
  };
  await deps.bus.publish(eventSubject(event), event);
  return true;
}
