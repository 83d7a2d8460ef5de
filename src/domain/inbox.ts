// The operator's inbox: reading conversations (list, detail) and the operator's changes,
// which go through the conversation write path (conversations.ts). Every call names the
// user: what they see is what the bots they are members of hold (members.ts).
import { contactsOfConversation } from "../db/contacts.ts";
import type { DbConversation } from "../db/conversations.ts";
import { listConversationMessages } from "../db/messages.ts";
import { findCallbackStates } from "../db/webhooks.ts";
import { listMemberInbox } from "../db/inbox_list.ts";
import { latestPageMetadata, otherConversationsOfContact, type AssigneeFilter, type DbContactConversation } from "../db/inbox_state.ts";
import { forUser } from "./inbox_view.ts";
import { replyAsOperator, setStatusAndNote, type ConversationDeps } from "./conversations.ts";
import { requireMember, requireMemberConversation } from "./members.ts";
import { assign, checkAssignable } from "./inbox_state.ts";
import type { EventBus } from "../bus/bus.ts";
import type { Contact, ContactConversation, InboxConversation, Message, Status } from "../core/records.ts";
import type { Db } from "../db/driver.ts";
import { notFound } from "../core/errors.ts";
import { findMemberConversation } from "../db/members.ts";
import { toContact, toMessage } from "../db/view.ts";

/** Inbox pages: 100 by default (spec), 500 at most so one page stays one fast query. */
export const INBOX_DEFAULT_LIMIT = 100;
export const INBOX_MAX_LIMIT = 500;
/** Messages shown in a conversation's detail before paging with `before`. */
export const DETAIL_MESSAGE_LIMIT = 200;

export interface InboxQuery {
  bot_id?: string;
  status?: Status;
  assignee?: AssigneeFilter;
  q?: string;
  limit?: number;
  before?: string;
}

export interface ConversationMetaPatch {
  status?: Status;
  operator_note?: string;
  /** A member of the bot, or null to unassign. */
  assignee_id?: string | null;
}

export type ConversationDetail = InboxConversation & {
  messages: Message[];
  contacts: Contact[];
  contact_conversations: ContactConversation[];
  page: { url: string; title: string | null } | null;
};

type InboxDeps = { db: Db };

/** `%` and `_` typed by the operator are searched for literally. */
export const likePattern = (q: string) => `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export async function listConversations(platform: InboxDeps, userId: string, query: InboxQuery): Promise<InboxConversation[]> {
  // Naming a bot one is not a member of is 404, as everywhere else.
  if (query.bot_id) await requireMember(platform.db, userId, query.bot_id);
  let before = null;
  if (query.before) {
    const cursor = await findMemberConversation(platform.db, query.before, userId);
    if (!cursor) throw notFound("conversation given as before");
    before = { at: cursor.last_message_at, id: cursor.id };
  }
  const q = query.q?.trim();
  const rows = await listMemberInbox(platform.db, {
    userId,
    botId: query.bot_id ?? null,
    status: query.status ?? null,
    assignee: query.assignee ?? "all",
    pattern: q ? likePattern(q) : null,
    before,
    limit: Math.min(query.limit ?? INBOX_DEFAULT_LIMIT, INBOX_MAX_LIMIT),
  });
  return forUser(platform, userId, rows);
}

const contactConversation = (row: DbContactConversation): ContactConversation => ({
  id: row.id, chat_id: row.chat_id, channel: row.channel, status: row.status, last_message_at: row.last_message_at.toISOString(),
});

/** The page the visitor was on: site senders put page_url/page_title (or url/title) in metadata. */
function pageOf(metadata: Record<string, unknown> | undefined): ConversationDetail["page"] {
  const url = metadata?.page_url ?? metadata?.url;
  if (typeof url !== "string" || !url) return null;
  const title = metadata?.page_title ?? metadata?.title;
  return { url, title: typeof title === "string" ? title : null };
}

export async function conversationDetail(
  platform: InboxDeps, userId: string, id: string, before: number | undefined,
): Promise<ConversationDetail> {
  const row = await requireMemberConversation(platform.db, userId, id);
  const [[card], messages, contacts, others, pageMetadata] = await Promise.all([
    forUser(platform, userId, [row]),
    listConversationMessages(platform.db, row.id, DETAIL_MESSAGE_LIMIT, before ?? null),
    contactsOfConversation(platform.db, row.id),
    row.contact_id ? otherConversationsOfContact(platform.db, row.contact_id, row.id) : Promise.resolve([]),
    latestPageMetadata(platform.db, row.id),
  ]);
  const delivery = await findCallbackStates(platform.db, messages.filter((m) => m.direction === "out").map((m) => m.id));
  return {
    ...card!,
    messages: messages.map((m) => ({ ...toMessage(m, row), delivery: delivery.get(m.id) ?? null })),
    contacts: contacts.map(toContact),
    contact_conversations: others.map(contactConversation),
    page: pageOf(pageMetadata),
  };
}

export async function operatorReply(platform: ConversationDeps, userId: string, id: string, text: string): Promise<Message> {
  const row = await requireMemberConversation(platform.db, userId, id);
  const { message, conversation, callbackQueued } = await replyAsOperator(platform, row, text);
  return { ...toMessage(message, conversation), delivery: callbackQueued ? "pending" : null };
}

/** Status and note go through the write path; the assignee is its own small change (inbox_state.ts). */
export async function patchConversation(
  platform: ConversationDeps & { bus: EventBus }, userId: string, id: string, patch: ConversationMetaPatch,
): Promise<InboxConversation> {
  let row = await requireMemberConversation(platform.db, userId, id);
  if (patch.assignee_id !== undefined) await checkAssignable(platform.db, row, patch.assignee_id);
  if (patch.status !== undefined || patch.operator_note !== undefined) {
    row = (await setStatusAndNote(platform, row, patch.status ?? null, patch.operator_note ?? null)).conversation;
  }
  if (patch.assignee_id !== undefined) row = await assign(platform, row, patch.assignee_id);
  return (await forUser(platform, userId, [row]))[0]!;
}
