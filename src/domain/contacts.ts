// Contacts as the team keeps them: list and search per bot, edit, merge two of one bot
// (their conversations move), and a CSV export. Members of the contact's bot only; anyone
// else gets 404, as for every resource.
import { badRequest, notFound } from "../core/errors.ts";
import type { Effects } from "../core/events.ts";
import type { Contact, ContactConversation } from "../core/records.ts";
import type { Db } from "../db/driver.ts";
import { findContact, listBotContacts, mergeContacts, updateContact, type ContactEdit } from "../db/contacts_admin.ts";
export type { ContactEdit };
import type { DbContact } from "../db/contacts.ts";
import { findConversationById } from "../db/conversations.ts";
import { otherConversationsOfContact } from "../db/inbox_state.ts";
import { findMemberBot } from "../db/members.ts";
import { toContact } from "../db/view.ts";
import { withRelations } from "./inbox_view.ts";
import { requireMember } from "./members.ts";

/** Contacts per page: the spec's inbox default; at most 500 so one page stays one fast query. */
export const CONTACTS_DEFAULT_LIMIT = 100;
export const CONTACTS_MAX_LIMIT = 500;
/** Why: attributes are a few facts about a person (plan, company), not a document store. */
export const MAX_CONTACT_ATTRIBUTES = 50;
export const MAX_ATTRIBUTE_VALUE_LENGTH = 1000;
/** Rows per query while the CSV streams: memory stays one page whatever the contact count. */
export const CSV_PAGE_ROWS = 500;

export type ContactDetail = Contact & { bot_id: string; conversations: ContactConversation[] };

const likePattern = (q: string) => `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export async function listContacts(
  deps: { db: Db }, userId: string, botId: string, query: { q?: string; limit?: number; cursor?: number },
): Promise<Contact[]> {
  await requireMember(deps.db, userId, botId);
  const q = query.q?.trim();
  const rows = await listBotContacts(deps.db, botId, {
    pattern: q ? likePattern(q) : null, beforeNumber: query.cursor ?? null, limit: Math.min(query.limit ?? CONTACTS_DEFAULT_LIMIT, CONTACTS_MAX_LIMIT),
  });
  return rows.map(toContact);
}

async function requireMemberContact(db: Db, userId: string, contactId: string): Promise<DbContact> {
  const row = await findContact(db, contactId);
  if (!row || !(await findMemberBot(db, row.bot_id, userId))) throw notFound("contact");
  return row;
}

async function detail(db: Db, row: DbContact): Promise<ContactDetail> {
  const conversations = await otherConversationsOfContact(db, row.id, "00000000-0000-0000-0000-000000000000");
  return {
    ...toContact(row), bot_id: row.bot_id,
    conversations: conversations.map((c) => ({ id: c.id, chat_id: c.chat_id, channel: c.channel, status: c.status, last_message_at: c.last_message_at.toISOString() })),
  };
}

export async function contactDetail(deps: { db: Db }, userId: string, contactId: string): Promise<ContactDetail> {
  return detail(deps.db, await requireMemberContact(deps.db, userId, contactId));
}

function checkAttributes(attributes: Record<string, unknown>): void {
  const entries = Object.entries(attributes);
  if (entries.length > MAX_CONTACT_ATTRIBUTES) throw badRequest(`attributes: at most ${MAX_CONTACT_ATTRIBUTES}`);
  for (const [key, value] of entries) {
    const plain = value === null || ["string", "number", "boolean"].includes(typeof value);
    if (!plain) throw badRequest(`attributes.${key}: must be a string, number, boolean or null`);
    if (typeof value === "string" && value.length > MAX_ATTRIBUTE_VALUE_LENGTH) throw badRequest(`attributes.${key}: at most ${MAX_ATTRIBUTE_VALUE_LENGTH} characters`);
  }
}

type ContactDeps = { db: Db; dispatch(effects: Effects): Promise<void> };

export async function editContact(deps: ContactDeps, userId: string, contactId: string, edit: ContactEdit): Promise<ContactDetail> {
  await requireMemberContact(deps.db, userId, contactId);
  if (edit.attributes) checkAttributes(edit.attributes);
  const blank = (v: string | null | undefined) => (v === undefined ? undefined : v?.trim() || null);
  const row = await updateContact(deps.db, contactId, { ...edit, name: blank(edit.name), email: blank(edit.email)?.toLowerCase() ?? blank(edit.email), phone: blank(edit.phone) });
  const result = await detail(deps.db, row);
  await announceConversations(deps, result.conversations.map((c) => c.id));
  return result;
}

/** `contactId` goes into `into` (same bot only); its conversations move; `into` is returned. */
export async function mergeContact(deps: ContactDeps, userId: string, contactId: string, intoId: string): Promise<ContactDetail> {
  if (contactId === intoId) throw badRequest("into: a contact cannot be merged into itself");
  const from = await requireMemberContact(deps.db, userId, contactId);
  const into = await findContact(deps.db, intoId);
  if (!into || !(await findMemberBot(deps.db, into.bot_id, userId))) throw notFound("contact given as into");
  if (into.bot_id !== from.bot_id) throw badRequest("into: contacts of different bots cannot be merged");
  await requireMember(deps.db, userId, from.bot_id);
  const moved = await deps.db.transaction((tx) => mergeContacts(tx, from.id, into.id));
  const result = await detail(deps.db, (await findContact(deps.db, into.id))!);
  await announceConversations(deps, moved);
  return result;
}

/** The conversations' new snapshots (their contact changed) to live views. */
async function announceConversations(deps: ContactDeps, ids: string[]): Promise<void> {
  const rows = (await Promise.all(ids.map((id) => findConversationById(deps.db, id)))).filter((r) => r !== undefined);
  if (rows.length === 0) return;
  const cards = await withRelations(deps, rows);
  await deps.dispatch({
    events: cards.map((conversation, i) => ({ kind: "conversation_updated" as const, owner_id: rows[i]!.owner_id, bot_id: rows[i]!.bot_id, conversation })),
    updates: [],
  });
}

export const CSV_COLUMNS = ["number", "name", "first_name", "last_name", "email", "phone", "external_user_id", "created_at", "attributes"] as const;

/**
 * One CSV cell: quoted, and a value a spreadsheet would run as a formula (= + - @, tab, CR)
 * starts with an apostrophe (OWASP's CSV injection advice).
 */
export function csvCell(value: unknown): string {
  let text = value === null || value === undefined ? "" : typeof value === "string" ? value : JSON.stringify(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return `"${text.replaceAll('"', '""')}"`;
}

/** The bot's contacts as CSV lines, a page at a time (the response streams them). */
export async function contactsCsv(deps: { db: Db }, userId: string, botId: string): Promise<AsyncGenerator<string>> {
  await requireMember(deps.db, userId, botId);
  return (async function* () {
    yield `${CSV_COLUMNS.join(",")}\r\n`;
    let before: number | null = null;
    for (;;) {
      const rows = await listBotContacts(deps.db, botId, { pattern: null, beforeNumber: before, limit: CSV_PAGE_ROWS });
      if (rows.length) {
        yield rows.map((r) => CSV_COLUMNS.map((c) => csvCell(c === "created_at" ? r.created_at.toISOString() : r[c])).join(",")).join("\r\n") + "\r\n";
        before = rows[rows.length - 1]!.number;
      }
      if (rows.length < CSV_PAGE_ROWS) return;
    }
  })();
}
