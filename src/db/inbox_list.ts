// The inbox list over every bot the user is a member of.
import { CONVERSATION_COLUMNS, type ConversationStatus, type DbConversation } from "./conversations.ts";
import type { Queryable } from "./driver.ts";
import { assigneeClause, type AssigneeFilter } from "./inbox_state.ts";


export interface MemberInboxFilter {
  userId: string;
  botId: string | null;
  status: ConversationStatus | null;
  assignee: AssigneeFilter;
  /** ILIKE pattern, already escaped and wrapped in %…% */
  pattern: string | null;
  before: { at: Date; id: string } | null;
  limit: number;
  /** A label name the conversation must carry. */
  label?: string | null;
}

/**
 * Newest activity first. Each of the user's bots gives its own newest `limit` rows through
 * its (bot, activity) index and the page is the newest of those, so a page costs the same
 * with one bot or twenty. Search matches contact name, email and phone, chat id, operator
 * note and the text of every message, through trigram indexes.
 */
export async function listMemberInbox(db: Queryable, f: MemberInboxFilter): Promise<DbConversation[]> {
  const params: unknown[] = [f.userId, f.botId, f.status, f.before?.at ?? null, f.before?.id ?? null, f.limit];
  let searchClause = "";
  if (f.pattern !== null) {
    params.push(f.pattern);
    searchClause += `and c.id in (
        select id from conversations where bot_id = mb.bot_id and (chat_id ilike $7 or (operator_note <> '' and operator_note ilike $7))
        union
        select cv.id from contacts ct join conversations cv on cv.contact_id = ct.id
          where ct.bot_id = mb.bot_id and (ct.name ilike $7 or ct.email ilike $7 or ct.phone ilike $7)
        union
        select conversation_id from messages where bot_id = mb.bot_id and text ilike $7 and deleted_at is null
      )`;
  }
  // After the search: its pattern is $7.
  if (f.label) {
    params.push(f.label);
    // `labels <> '{}'` first: it is the partial index's predicate (sql/300).
    searchClause += ` and c.labels <> '{}' and c.labels @> array[$${params.length}::text]`;
  }
  return db.query<DbConversation>(
    `select x.* from (select bot_id from bot_members where user_id = $1 and ($2::uuid is null or bot_id = $2::uuid)) mb
     cross join lateral (
       select ${CONVERSATION_COLUMNS} from conversations c
       where c.bot_id = mb.bot_id
         and ($3::text is null or c.status = $3::text)
         and ($4::timestamptz is null or (c.last_message_at, c.id) < ($4::timestamptz, $5::uuid))
         and ${assigneeClause(f.assignee)}
         ${searchClause}
       order by c.last_message_at desc, c.id desc
       limit $6
     ) x
     order by x.last_message_at desc, x.id desc
     limit $6`,
    params,
  );
}
