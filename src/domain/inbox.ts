// The operator's inbox: reading conversations (list, detail) and the operator's changes,
// which go through the conversation write path (conversations.ts). Every call names the
// user: what they see is what the bots they are members of hold (members.ts).
import { requireTextOrFiles, resolveAttachments } from "./files.ts";
import { contactsOfConversation } from "../db/contacts.ts";
import type { DbConversation } from "../db/conversations.ts";
import { listConversationMessages } from "../db/messages.ts";
import { findCallbackStates } from "../db/webhooks.ts";
import { findMailStates } from "../db/mail.ts";
import type { DbMessage } from "../db/messages.ts";
import { listMemberInbox } from "../db/inbox_list.ts";
import { latestPageMetadata, otherConversationsOfContact, type AssigneeFilter, type DbContactConversation } from "../db/inbox_state.ts";
import { forUser } from "./inbox_view.ts";
import { applySnooze, parseSnooze } from "./snooze.ts";
import { replyAsOperator, setStatusAndNote, type ConversationDeps } from "./conversations.ts";
import { requireMember, requireMemberConversation } from "./members.ts";
import { assign, checkAssignable } from "./inbox_state.ts";
import type { EventBus } from "../bus/bus.ts";
import type { Contact, ContactConversation, InboxConversation, Message, Status } from "../core/records.ts";
import type { Db } from "../db/driver.ts";
import { notFound } from "../core/errors.ts";
import { findMemberConversation } from "../db/members.ts";
import { findUserById } from "../db/users.ts";
import { toContact, toMessage } from "../db/view.ts";
import { findRating } from "../db/ratings.ts";

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
  /** With status "waiting": reopen at this ISO time (snooze); null cancels a snooze. */
  snoozed_until?: string | null;
}

export type ConversationDetail = InboxConversation & {
  messages: Message[];
  contacts: Contact[];
  contact_conversations: ContactConversation[];
  page: { url: string; title: string | null } | null;
  /** The visitor's satisfaction rating, once the conversation was closed and rated. */
  rating: { rating: number; comment: string | null; created_at: string } | null;
};

type InboxDeps = { db: Db };

/** `%` and `_` typed by the operator are searched for literally. */
const likePattern = (q: string) => `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export async function listConversations(deps: InboxDeps, userId: string, query: InboxQuery): Promise<InboxConversation[]> {
  // Naming a bot one is not a member of is 404, as everywhere else.
  if (query.bot_id) await requireMember(deps.db, userId, query.bot_id);
  let before = null;
  if (query.before) {
    const cursor = await findMemberConversation(deps.db, query.before, userId);
    if (!cursor) throw notFound("conversation given as before");
    before = { at: cursor.last_message_at, id: cursor.id };
  }
  const q = query.q?.trim();
  const rows = await listMemberInbox(deps.db, {
    userId,
    botId: query.bot_id ?? null,
    status: query.status ?? null,
    assignee: query.assignee ?? "all",
    pattern: q ? likePattern(q) : null,
    before,
    limit: Math.min(query.limit ?? INBOX_DEFAULT_LIMIT, INBOX_MAX_LIMIT),
  });
  return forUser(deps, userId, rows);
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
  deps: InboxDeps, userId: string, id: string, before: number | undefined,
): Promise<ConversationDetail> {
  const row = await requireMemberConversation(deps.db, userId, id);
  const [[card], messages, contacts, others, pageMetadata, rating] = await Promise.all([
    forUser(deps, userId, [row]),
    listConversationMessages(deps.db, row.id, DETAIL_MESSAGE_LIMIT, before ?? null),
    contactsOfConversation(deps.db, row.id),
    row.contact_id ? otherConversationsOfContact(deps.db, row.contact_id, row.id) : Promise.resolve([]),
    latestPageMetadata(deps.db, row.id),
    findRating(deps.db, row.id),
  ]);
  const outgoing = messages.filter((m) => m.direction === "out").map((m) => m.id);
  const [delivery, mail] = await Promise.all([findCallbackStates(deps.db, outgoing), findMailStates(deps.db, outgoing)]);
  // An e-mail conversation's messages leave by mail: that state is the one shown.
  const stateOf = (m: DbMessage) => {
    const sent = mail.get(m.id);
    return sent ? { delivery: sent.state, delivery_error: sent.last_error } : { delivery: delivery.get(m.id) ?? null };
  };
  return {
    ...card!,
    messages: messages.map((m) => ({ ...toMessage(m, row), ...stateOf(m) })),
    contacts: contacts.map(toContact),
    contact_conversations: others.map(contactConversation),
    page: pageOf(pageMetadata),
    rating: rating ? { rating: rating.rating, comment: rating.comment, created_at: new Date(rating.created_at).toISOString() } : null,
  };
}

/**
 * The name a visitor sees on an operator's reply. Accounts have only an e-mail address, so
 * its first word stands in ("anna.berg@acme.com": "Anna"): a first name, not the address.
 */
export function operatorName(email: string | undefined): string {
  const first = email?.split("@")[0]?.split(/[._+-]/)[0]?.replace(/[^\p{L}]/gu, "") ?? "";
  return first ? first[0]!.toUpperCase() + first.slice(1).toLowerCase() : "Support";
}

export async function operatorReply(
  deps: ConversationDeps, userId: string, id: string, text: string, fileIds?: string[],
): Promise<Message> {
  const row = await requireMemberConversation(deps.db, userId, id);
  const attachments = await resolveAttachments(deps.db, row.bot_id, fileIds, row.chat_id);
  requireTextOrFiles(text, attachments);
  const metadata = { operator_name: operatorName((await findUserById(deps.db, userId))?.email) };
  const { message, conversation, callbackQueued } = await replyAsOperator(deps, row, text, attachments, metadata);
  return { ...toMessage(message, conversation), delivery: callbackQueued ? "pending" : null };
}

/** Status and note go through the write path; the assignee is its own small change (inbox_state.ts). */
export async function patchConversation(
  deps: ConversationDeps & { bus: EventBus }, userId: string, id: string, patch: ConversationMetaPatch,
): Promise<InboxConversation> {
  let row = await requireMemberConversation(deps.db, userId, id);
  const snooze = parseSnooze(patch.status, patch.snoozed_until, new Date());
  if (patch.assignee_id !== undefined) await checkAssignable(deps.db, row, patch.assignee_id);
  if (patch.status !== undefined || patch.operator_note !== undefined) {
    row = (await setStatusAndNote(deps, row, patch.status ?? null, patch.operator_note ?? null)).conversation;
  }
  if (patch.assignee_id !== undefined) row = await assign(deps, row, patch.assignee_id);
  await applySnooze(deps, row, patch.status, snooze);
  return (await forUser(deps, userId, [row]))[0]!;
}
