// The operator's inbox: reading conversations (list, detail) and the operator's changes,
// which go through the conversation write path (conversations.ts).
import { contactsOfConversation, findContactsByIds } from "../db/contacts.ts";
import { findConversationOfOwner, listInbox, type DbConversation } from "../db/conversations.ts";
import { findMessagesByIds, listConversationMessages } from "../db/messages.ts";
import { notFound } from "../core/errors.ts";
import { findCallbackStates } from "../db/webhooks.ts";
import { replyAsOperator, setStatusAndNote, type ConversationDeps } from "./conversations.ts";
import type { Contact, Conversation, Message, Status } from "../core/records.ts";
import type { Db } from "../db/driver.ts";
import { toContact, toConversation, toMessage } from "../db/view.ts";

/** Inbox pages: 100 by default (spec), 500 at most so one page stays one fast query. */
export const INBOX_DEFAULT_LIMIT = 100;
export const INBOX_MAX_LIMIT = 500;
/** Messages shown in a conversation's detail before paging with `before`. */
export const DETAIL_MESSAGE_LIMIT = 200;

export interface InboxQuery {
  bot_id?: string;
  status?: Status;
  q?: string;
  limit?: number;
  before?: string;
}

export interface ConversationMetaPatch {
  status?: Status;
  operator_note?: string;
}

export type ConversationDetail = Conversation & { messages: Message[]; contacts: Contact[] };

type InboxDeps = { db: Db };

/** `%` and `_` typed by the operator are searched for literally. */
export const likePattern = (q: string) => `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** Contacts and last messages of a page in two queries, not two per row. */
async function withRelations(platform: InboxDeps, rows: DbConversation[]): Promise<Conversation[]> {
  const contactIds = [...new Set(rows.map((r) => r.contact_id).filter((id): id is string => id !== null))];
  const messageIds = rows.map((r) => r.last_message_id).filter((id): id is string => id !== null);
  const [contacts, messages] = await Promise.all([
    findContactsByIds(platform.db, contactIds),
    findMessagesByIds(platform.db, messageIds),
  ]);
  const contactById = new Map(contacts.map((c) => [c.id, c]));
  const messageById = new Map(messages.map((m) => [m.id, m]));
  return rows.map((r) =>
    toConversation(r, r.contact_id ? contactById.get(r.contact_id) : undefined, r.last_message_id ? messageById.get(r.last_message_id) : undefined),
  );
}

export async function listConversations(platform: InboxDeps, ownerId: string, query: InboxQuery): Promise<Conversation[]> {
  let before = null;
  if (query.before) {
    const cursor = await findConversationOfOwner(platform.db, query.before, ownerId);
    if (!cursor) throw notFound("conversation given as before");
    before = { at: cursor.last_message_at, id: cursor.id };
  }
  const q = query.q?.trim();
  const rows = await listInbox(platform.db, {
    ownerId,
    botId: query.bot_id ?? null,
    status: query.status ?? null,
    pattern: q ? likePattern(q) : null,
    before,
    limit: Math.min(query.limit ?? INBOX_DEFAULT_LIMIT, INBOX_MAX_LIMIT),
  });
  return withRelations(platform, rows);
}

/** Another user's conversation is "not found", like an unknown one. */
export async function requireOwnConversation(platform: InboxDeps, ownerId: string, id: string): Promise<DbConversation> {
  const row = await findConversationOfOwner(platform.db, id, ownerId);
  if (!row) throw notFound("conversation");
  return row;
}

export async function conversationDetail(
  platform: InboxDeps, ownerId: string, id: string, before: number | undefined,
): Promise<ConversationDetail> {
  const row = await requireOwnConversation(platform, ownerId, id);
  const [[card], messages, contacts] = await Promise.all([
    withRelations(platform, [row]),
    listConversationMessages(platform.db, row.id, DETAIL_MESSAGE_LIMIT, before ?? null),
    contactsOfConversation(platform.db, row.id),
  ]);
  const delivery = await findCallbackStates(platform.db, messages.filter((m) => m.direction === "out").map((m) => m.id));
  return {
    ...card!,
    messages: messages.map((m) => ({ ...toMessage(m, row), delivery: delivery.get(m.id) ?? null })),
    contacts: contacts.map(toContact),
  };
}

export async function operatorReply(platform: ConversationDeps, ownerId: string, id: string, text: string): Promise<Message> {
  const row = await requireOwnConversation(platform, ownerId, id);
  const { message, conversation, callbackQueued } = await replyAsOperator(platform, row, text);
  return { ...toMessage(message, conversation), delivery: callbackQueued ? "pending" : null };
}

export async function patchConversation(
  platform: ConversationDeps, ownerId: string, id: string, patch: ConversationMetaPatch,
): Promise<Conversation> {
  const row = await requireOwnConversation(platform, ownerId, id);
  const { conversation, contact, lastMessage } = await setStatusAndNote(platform, row, patch.status ?? null, patch.operator_note ?? null);
  return toConversation(conversation, contact, lastMessage);
}
