// Conversation rows as an inbox shows them: with contact and last message, and for one user
// with assignee and unread count. Batched: a page costs a few queries, not a few per row.
// The one place stored conversations are loaded into snapshots (db/view.ts's toConversation
// shapes one; the write path shapes the rows it already holds).
import { findContactsByIds } from "../db/contacts.ts";
import type { DbConversation } from "../db/conversations.ts";
import type { Db } from "../db/driver.ts";
import { findAssignees, unreadCounts } from "../db/inbox_state.ts";
import { findMessagesByIds } from "../db/messages.ts";
import { toConversation } from "../db/view.ts";
import type { Assignee, Conversation, InboxConversation } from "../core/records.ts";
import { snoozedUntil } from "./snooze.ts";

type InboxDeps = { db: Db };

/** Contacts and last messages of a page in two queries, not two per row. */
export async function withRelations(deps: InboxDeps, rows: DbConversation[]): Promise<Conversation[]> {
  const contactIds = [...new Set(rows.map((r) => r.contact_id).filter((id): id is string => id !== null))];
  const messageIds = rows.map((r) => r.last_message_id).filter((id): id is string => id !== null);
  const [contacts, messages] = await Promise.all([
    findContactsByIds(deps.db, contactIds),
    findMessagesByIds(deps.db, messageIds),
  ]);
  const contactById = new Map(contacts.map((c) => [c.id, c]));
  const messageById = new Map(messages.map((m) => [m.id, m]));
  return rows.map((r) =>
    toConversation(r, r.contact_id ? contactById.get(r.contact_id) : undefined, r.last_message_id ? messageById.get(r.last_message_id) : undefined),
  );
}

/** The assignee of each conversation, by conversation id. */
export async function assigneesOf(db: Db, conversationIds: string[]): Promise<Map<string, Assignee>> {
  const rows = await findAssignees(db, conversationIds);
  return new Map(rows.map((a) => [a.conversation_id, { user_id: a.user_id, email: a.email }]));
}

/** Adds what this user's inbox shows beside the shared snapshot: assignee and unread count. */
export async function forUser(deps: InboxDeps, userId: string, rows: DbConversation[]): Promise<InboxConversation[]> {
  const ids = rows.map((r) => r.id);
  const [cards, assignees, unread, snoozes] = await Promise.all([
    withRelations(deps, rows),
    assigneesOf(deps.db, ids),
    unreadCounts(deps.db, userId, ids),
    snoozedUntil(deps, rows),
  ]);
  return cards.map((card) => ({
    ...card, assignee: assignees.get(card.id) ?? null, unread_count: unread.get(card.id) ?? 0, snoozed_until: snoozes.get(card.id) ?? null,
  }));
}

