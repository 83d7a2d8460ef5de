// The write of a group commit (actors/intake-committer.ts): every part of a batch, for all its
// bots, in one statement. Its reads (the lock and the look-ups) are db/intake.ts.
import { REOPENED_BY_INCOMING } from "../core/records.ts";
import { CONTACT_COLUMNS, type ContactFields, type DbContact } from "./contacts.ts";
import { CONVERSATION_COLUMNS, type DbConversation } from "./conversations.ts";
import { json, type Queryable } from "./driver.ts";
import { reviveContact, reviveConversation, type DbBotCounters, type Json } from "./intake.ts";
import { NOTHING_PLANNED, plannedStateHolds, plannedStateParams, type PlannedFrom } from "./intake-guard.ts";

export interface ContactWrite extends ContactFields {
  id: string;
  number: number;
  key: string;
}

export interface ConversationWrite {
  id: string;
  number: number;
  chatId: string;
  channel: string;
  contactId: string;
  /** The batch's messages in it: a new conversation is written once, with its activity, never touched after. */
  messageCount: number;
  lastMessageId: string;
  latestAt: Date;
  /** The earliest of the batch's messages in it: its report row's first incoming message. */
  earliestAt: Date;
}

export interface IncomingMessageWrite {
  id: string;
  conversationId: string;
  messageId: number;
  contactId: string;
  fromId: string | null;
  text: string;
  metadata: Record<string, unknown>;
  clientMessageId: string | null;
  createdAt: Date;
  /** The message's files, as stored. */
  attachments: unknown[];
  /** Its conversation's channel, for the report's count of incoming messages per channel. */
  channel: string;
}

export interface ConversationTouch {
  id: string;
  /** Messages the batch adds to it. */
  added: number;
  lastMessageId: string;
  latestAt: Date;
  /** The earliest of the batch's messages in it (the report's first incoming message, if earlier). */
  earliestAt: Date;
  contactId: string;
}

/** What one group commit writes for one of its bots; any list may be empty. */
export interface BotBatchWrite {
  botId: string;
  ownerId: string;
  /** The counters the batch's numbers continue from, as its plan saw them. */
  base: DbBotCounters;
  /** The counters after the batch, as its plan numbered it. */
  counters: DbBotCounters;
  contacts: ContactWrite[];
  conversations: ConversationWrite[];
  messages: IncomingMessageWrite[];
  /** Outbox rows, each naming the message its update is about; none when the update log lives in the same database. */
  outbox: { updateId: number; messageRef: string }[];
  /** Its known conversations' new activity, one row each. */
  touches: ConversationTouch[];
}

export interface IncomingBatchWritten {
  /** New contacts and known ones the batch told more about, as stored (each names its bot). */
  contacts: DbContact[];
  /** The conversations the batch created, as stored. */
  conversations: DbConversation[];
  /** The known conversations it touched, as stored after the touch. */
  touched: DbConversation[];
  /** Per bot that moved, what other writers numbered since the counters its plan saw (see writeIncomingBatch). */
  shifts: Map<string, NumberShift>;
}

export type NumberShift = { messages: number; updates: number };

/**
 * A group commit's writes, for all its bots, in ONE statement (data-modifying CTEs): the
 * server plans, starts and answers one statement per transaction instead of five per bot,
 * which is most of a small batch's cost. All parts see the same snapshot and write disjoint
 * rows (the touch updates known conversations, the insert creates new ones); references are
 * checked at the end of the statement, once per table (sql/290), so a message may name a
 * conversation or contact inserted beside it. Its two texts (WRITE_CREATING, WRITE_KNOWN)
 * never vary (empty arrays write nothing), so each is prepared once per connection and runs
 * on the one plan kept for it: every part that reads a table probes a primary key or an
 * insert's conflict target, the only plan keepOnePlanPerStatement allows whatever the tables
 * held when it was made.
 * `planned`: what a plan from memory took for granted (db/intake-guard.ts); checked in the same
 * snapshot as the writes, taken after the bots' locks were granted, and the statement fails
 * whole (INTAKE_PLAN_STALE) when it no longer holds. The touch and the check were statements
 * of their own; merged, the transaction is one statement shorter (their cost is their work,
 * docs/decisions.md round 17).
 * The counters move by what the batch adds; its message_ids and update_ids (rows and outbox
 * payloads) move by what other writers numbered since the counters its plan saw: nothing under
 * the lock, a reply's numbers for a plan from memory (actors/intake-cache.ts; such a plan
 * creates no contact or conversation, whose numbers therefore never move).
 */
export async function writeIncomingBatch(db: Queryable, bots: BotBatchWrite[], planned: PlannedFrom = NOTHING_PLANNED): Promise<IncomingBatchWritten> {
  return answered(await db.query(createsRows(bots) ? WRITE_CREATING : WRITE_KNOWN, writeParams(bots, planned)));
}

/** Whether the batch adds or tells more about a contact, or starts a conversation. */
const createsRows = (bots: BotBatchWrite[]) => bots.some((b) => b.contacts.length > 0 || b.conversations.length > 0);

/**
 * A batch planned from memory (it creates no contact and no conversation) written by ONE
 * statement outside any transaction: intake_write_known_v1 (sql/320) locks the bots' rows and
 * then runs WRITE_KNOWN, in a snapshot taken after the locks were granted (a volatile PL/pgSQL
 * function takes one per statement), and PostgreSQL commits it as the statement's own
 * transaction. BEGIN with its settings, the lock and COMMIT were three more messages, each
 * answered on its own; and COMMIT, issued behind the write, often left only after the write's
 * answer: the backend that the write's socket write wakes preempts us on a 2-core machine, so
 * the write ran to its end before COMMIT was even sent (docs/decisions.md round 34).
 * Takes the pool, not a transaction's connection: the call commits as its own transaction.
 */
export async function writeKnownBatchAlone(db: Pick<Queryable, "query">, bots: BotBatchWrite[], planned: PlannedFrom): Promise<IncomingBatchWritten> {
  if (createsRows(bots)) throw new Error("a batch written alone creates no contact and no conversation");
  return answered(await db.query(CALL_WRITE_KNOWN_ALONE, writeParams(bots, planned)));
}

type WriteAnswer = {
  contacts: Json<DbContact>[] | null; conversations: Json<DbConversation>[] | null; touched: Json<DbConversation>[] | null;
  shifts: [string, number, number][] | null;
};

function answered(rows: WriteAnswer[]): IncomingBatchWritten {
  const row = rows[0];
  return {
    contacts: (row?.contacts ?? []).map(reviveContact),
    conversations: (row?.conversations ?? []).map(reviveConversation),
    touched: (row?.touched ?? []).map(reviveConversation),
    shifts: new Map((row?.shifts ?? []).map(([botId, messages, updates]) => [botId, { messages: Number(messages), updates: Number(updates) }])),
  };
}

/** The write's twelve parameters (the texts' comment below says what each is). */
function writeParams(bots: BotBatchWrite[], planned: PlannedFrom): unknown[] {
  const touches = bots.flatMap((b) => b.touches);
  return [
    json(bots.map((b) => ({
      id: b.botId, message_id: b.counters.last_message_id, update_id: b.counters.last_update_id,
      conversation_number: b.counters.last_conversation_number, contact_number: b.counters.last_contact_number,
      base_message_id: b.base.last_message_id, base_update_id: b.base.last_update_id,
      base_conversation_number: b.base.last_conversation_number, base_contact_number: b.base.last_contact_number,
    }))),
    bots.map((b) => b.botId),
    json(bots.flatMap((b) => b.contacts.map((r) => ({
      bot_id: b.botId, owner_id: b.ownerId, id: r.id, number: r.number, key: r.key, ext: r.externalUserId, first: r.firstName,
      last: r.lastName, name: r.name, email: r.email, phone: r.phone,
    })))),
    json(bots.flatMap((b) => b.conversations.map((r) => ({
      bot_id: b.botId, owner_id: b.ownerId, id: r.id, number: r.number, chat_id: r.chatId, channel: r.channel, contact_id: r.contactId,
      message_count: r.messageCount, last_message_id: r.lastMessageId, latest_at: r.latestAt, earliest_at: r.earliestAt,
    })))),
    json(bots.flatMap((b) => b.messages.map((r) => ({
      bot_id: b.botId, owner_id: b.ownerId, id: r.id, conversation_id: r.conversationId, message_id: r.messageId, contact_id: r.contactId,
      from_id: r.fromId, text: r.text, metadata: r.metadata, client_message_id: r.clientMessageId, created_at: r.createdAt,
      attachments: r.attachments,
    })))),
    json(bots.flatMap((b) => b.outbox.map((r) => ({ bot_id: b.botId, update_id: r.updateId, message_ref: r.messageRef })))),
    json(touches.map((r) => ({
      id: r.id, added: r.added, last_message_id: r.lastMessageId, latest_at: r.latestAt, earliest_at: r.earliestAt, contact_id: r.contactId,
    }))),
    touches.map((r) => r.id),
    REOPENED_BY_INCOMING,
    ...plannedStateParams(planned),
    json(incomingQuarters(bots)),
  ];
}

/** Why: the reports count incoming messages per 15 minutes (sql/220: date_bin's origin, 2001-01-01 UTC, is a multiple of it since 1970). */
const QUARTER_MS = 15 * 60 * 1000;

/**
 * The batch's incoming messages counted per bot, channel and quarter hour, as the report's
 * upsert adds them: counted here, the statement parses the messages' JSON once (the insert),
 * not a second time for three of its fields (a JSON text costs PostgreSQL per row and per parse).
 */
function incomingQuarters(bots: BotBatchWrite[]): { bot_id: string; channel: string; quarter: Date; incoming: number }[] {
  const counts = new Map<string, { bot_id: string; channel: string; quarter: Date; incoming: number }>();
  for (const b of bots) {
    for (const m of b.messages) {
      const quarter = Math.floor(m.createdAt.getTime() / QUARTER_MS) * QUARTER_MS;
      const key = `${b.botId}\n${m.channel}\n${quarter}`;
      const counted = counts.get(key);
      if (counted) counted.incoming++;
      else counts.set(key, { bot_id: b.botId, channel: m.channel, quarter: new Date(quarter), incoming: 1 });
    }
  }
  return [...counts.values()];
}

// Parameters: each part's rows as one JSON text (an array of objects, read by json_to_recordset),
// encoded by JSON.stringify in one native call: as 72 typed arrays, postgres.js escaped every
// element in JavaScript (its Bind was 0.15-0.2 ms of a lone message's path, and 7 % of the web
// process's samples under load, docs/decisions.md round 23). $1 the bots' counters (after the
// batch, and the ones it continued from), $2 the bots' ids, $3 contacts, $4 new conversations,
// $5 messages, $6 outbox rows, $7 touches of known conversations, $8 their ids, $9 the statuses
// an incoming message reopens, $10 and $11 what a plan from memory assumed (db/intake-guard.ts),
// $12 the incoming counts per bot, channel and quarter hour (incomingQuarters).
// The ids travel as arrays too: `= any($2)` and `= any($8)` give the planner the primary key
// even without statistics (PGlite has none: it hash-joined every conversation of every bot).

/**
 * Each bot's counters moved by what its batch adds. Returns how far the stored numbers had
 * moved past the plan's.
 */
const UPDATE_COUNTERS = `update bots b set last_message_id = b.last_message_id + v.message_id - v.base_message_id,
       last_update_id = b.last_update_id + v.update_id - v.base_update_id,
       last_conversation_number = b.last_conversation_number + v.conversation_number - v.base_conversation_number,
       last_contact_number = b.last_contact_number + v.contact_number - v.base_contact_number
     from json_to_recordset($1::text::json) as v(id uuid, message_id int8, update_id int8, conversation_number int8, contact_number int8,
       base_message_id int8, base_update_id int8, base_conversation_number int8, base_contact_number int8)
     where b.id = v.id and b.id = any($2::uuid[])
     returning b.id, b.last_message_id - v.message_id as messages, b.last_update_id - v.update_id as updates`;

/** New contacts, and known ones the batch tells more about (fields are filled in, never erased). */
const UPSERT_CONTACTS = `insert into contacts (id, bot_id, owner_id, number, contact_key, external_user_id, first_name, last_name, name, email, phone)
     select v.id, v.bot_id, v.owner_id, v.number, v.key, v.ext, v.first, v.last, v.name, v.email, v.phone
     from json_to_recordset($3::text::json)
       as v(bot_id uuid, owner_id uuid, id uuid, number int8, key text, ext text, first text, last text, name text, email text, phone text)
     on conflict (bot_id, contact_key) do update set
       external_user_id = coalesce(excluded.external_user_id, contacts.external_user_id),
       first_name = coalesce(excluded.first_name, contacts.first_name),
       last_name = coalesce(excluded.last_name, contacts.last_name),
       name = coalesce(excluded.name, contacts.name),
       email = coalesce(excluded.email, contacts.email),
       phone = coalesce(excluded.phone, contacts.phone),
       updated_at = now()
     returning ${CONTACT_COLUMNS}`;

/**
 * Written with their activity already counted: an update right after the insert would write
 * every index of the row a second time (last_message_at is indexed, so it is never HOT).
 */
const INSERT_CONVERSATIONS = `insert into conversations as c (id, bot_id, owner_id, number, chat_id, channel, contact_id, message_count, last_message_id, last_message_at)
     select v.id, v.bot_id, v.owner_id, v.number, v.chat_id, v.channel, v.contact_id, v.message_count, v.last_message_id, greatest(now(), v.latest_at)
     from json_to_recordset($4::text::json) as v(bot_id uuid, owner_id uuid, id uuid, number int8, chat_id text, channel text, contact_id uuid,
       message_count int4, last_message_id uuid, latest_at timestamptz)
     returning ${CONVERSATION_COLUMNS}`;

const INSERT_MESSAGES = `insert into messages as m (id, bot_id, owner_id, conversation_id, message_id, direction, sender, contact_id, from_id, text,
                                metadata, client_message_id, created_at, attachments)
     select v.id, v.bot_id, v.owner_id, v.conversation_id, v.message_id + s.messages, 'in', 'user', v.contact_id, v.from_id, v.text,
            v.metadata, v.client_message_id, v.created_at, v.attachments
     from json_to_recordset($5::text::json) as v(bot_id uuid, owner_id uuid, id uuid, conversation_id uuid, message_id int8, contact_id uuid,
       from_id text, text text, metadata jsonb, client_message_id text, created_at timestamptz, attachments jsonb)
     join counters s on s.id = v.bot_id`;

/** One update per known conversation for the whole batch; an incoming message reopens one (core/records.ts REOPENED_BY_INCOMING). */
const TOUCH_CONVERSATIONS = `update conversations c set message_count = c.message_count + v.added, last_message_id = v.last_message_id,
       last_message_at = greatest(c.last_message_at, v.latest_at),
       status = case when c.status::text = any($9::text[]) then 'open' else c.status end,
       contact_id = coalesce(c.contact_id, v.contact_id), updated_at = now()
     from json_to_recordset($7::text::json) as v(id uuid, added int4, last_message_id uuid, latest_at timestamptz, contact_id uuid)
     where c.id = v.id and c.id = any($8::uuid[])
     returning ${CONVERSATION_COLUMNS}`;
/** The report's first incoming message of a touched conversation, when the batch's is earlier (sql/260: the trigger leaves it to us). */
const REPORT_FIRST_IN = `update report_conversations r set first_in_at = v.earliest_at
     from json_to_recordset($7::text::json) as v(id uuid, earliest_at timestamptz)
     where r.conversation_id = v.id and r.conversation_id = any($8::uuid[]) and (r.first_in_at is null or v.earliest_at < r.first_in_at)`;

/**
 * Incoming messages' updates name their message (sql/310): a moved batch's update_id moves, and
 * the relay builds the update from the message as stored, its moved message_id included.
 */
const INSERT_OUTBOX = `insert into outbox (bot_id, update_id, message_ref)
     select v.bot_id, v.update_id + s.updates, v.message_ref
     from json_to_recordset($6::text::json) as v(bot_id uuid, update_id int8, message_ref uuid) join counters s on s.id = v.bot_id`;

// Reports (sql/220): what the triggers on conversations and messages would write for this
// batch, written here instead (sql/260): its messages are all incoming and public, so a new
// conversation's report row starts with its first incoming message (one insert, where the
// triggers made an insert and an update), and the quarter counts are one upsert per channel
// and quarter, counted by incomingQuarters.
const INSERT_REPORT_CONVERSATIONS = `insert into report_conversations (conversation_id, bot_id, channel, created_at, first_in_at)
     select c.id, c.bot_id, c.channel, c.created_at, v.earliest_at
     from created c join json_to_recordset($4::text::json) as v(id uuid, earliest_at timestamptz) on v.id = c.id`;
const COUNT_REPORT_QUARTERS = `insert into report_incoming_quarters as q (bot_id, channel, quarter, incoming)
     select v.bot_id, v.channel, v.quarter, v.incoming
     from json_to_recordset($12::text::json) as v(bot_id uuid, channel text, quarter timestamptz, incoming int4)
     on conflict (bot_id, quarter, channel) do update set incoming = q.incoming + excluded.incoming`;
/** Tells the report triggers this transaction wrote its roll-up (they return at once); read by the outer select, so it runs. */
const ROLLUP_WRITTEN = `select set_config('botinbox.report_rollup', 'written', true) as flag`;

/** The parts every batch writes, and what the statement answers. */
const WRITE_ALWAYS = `held as (${plannedStateHolds(10, 11)}), counters as (${UPDATE_COUNTERS}), inserted as (${INSERT_MESSAGES}
     ), touched as (${TOUCH_CONVERSATIONS}), queued as (${INSERT_OUTBOX}), reported_first as (${REPORT_FIRST_IN}
     ), counted as (${COUNT_REPORT_QUARTERS}), rolled_up as (${ROLLUP_WRITTEN})`;
const ANSWER = (created: string) => `select ${created}, (select json_agg(t) from touched t) as touched,
       (select json_agg(json_build_array(s.id, s.messages, s.updates)) from counters s where s.messages <> 0 or s.updates <> 0) as shifts,
       (select flag from rolled_up) as report_rollup, (select holds from held) as plan_holds`;
/** A batch that adds or tells more about a contact, or starts a conversation. */
const WRITE_CREATING = `with ${WRITE_ALWAYS}, upserted as (${UPSERT_CONTACTS}), created as (${INSERT_CONVERSATIONS}
     ), reported as (${INSERT_REPORT_CONVERSATIONS})
     ${ANSWER("(select json_agg(u) from upserted u) as contacts, (select json_agg(c) from created c) as conversations")}`;
/**
 * A batch of known chats from known senders, a chat's usual next message: without the parts
 * that would write nothing. Each table a statement writes is opened with all its indexes when
 * the statement starts, rows or not; leaving out contacts, the new conversations and their
 * report rows (18 indexes) took 0.16 ms off a lone message's write (1.01 → 0.85 ms of
 * PostgreSQL's own time in one pair of runs, docs/decisions.md round 17). Takes the same
 * parameters: the ones only the creating parts use are declared in a part that never runs, so
 * that PostgreSQL knows their types.
 */
const WRITE_KNOWN = `with ${WRITE_ALWAYS}, unused as (${declareParameters(
  [UPSERT_CONTACTS, INSERT_CONVERSATIONS, INSERT_REPORT_CONVERSATIONS], [WRITE_ALWAYS],
)})
     ${ANSWER("null::json as contacts, null::json as conversations")}`;

/** `select $n::type, …` for each parameter cast in `parts` and absent from `rest`, in order. */
function declareParameters(parts: string[], rest: string[]): string {
  const casts = (texts: string[]) => new Map(texts.flatMap((t) => [...t.matchAll(/\$(\d+)::([\w\[\]]+)/g)].map((m) => [Number(m[1]), m[2]!] as const)));
  const used = casts(rest);
  const declared = [...casts(parts)].filter(([n]) => !used.has(n)).sort(([a], [b]) => a - b);
  return `select ${declared.map(([n, type]) => `$${n}::${type}`).join(", ")}`;
}

/**
 * The body of intake_write_known_v1 (sql/320), which must be exactly this text (a test compares
 * them): the lock statement of db/intake.ts lockBots, then WRITE_KNOWN. A change to either is a
 * new function in a new migration, under a new name: processes of the release before it still
 * call this one.
 */
export const WRITE_KNOWN_ALONE_BODY = `
begin
  perform 1 from bots where id = any($2::uuid[]) order by id for update;
  return query ${WRITE_KNOWN};
end`;
/** Its columns are named apart from the tables the body names (PL/pgSQL would take them for variables). */
const CALL_WRITE_KNOWN_ALONE = `select w_contacts as contacts, w_conversations as conversations, w_touched as touched, w_shifts as shifts
     from intake_write_known_v1($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`;
