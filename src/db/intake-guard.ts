// The check of a group commit planned from what its process remembered (actors/intake-cache.ts)
// instead of from the look-ups: part of the batch's write statement, sent right behind the lock
// with COMMIT behind it, so the batch costs one round trip instead of two. Running after the
// lock, in the write's own snapshot, it compares what the plan used with what is stored, and
// raises (sql/280) when any of it changed: the write fails whole, COMMIT rolls back, and the
// batch is planned again from the look-ups.
import { PG_UNIQUE_VIOLATION } from "../core/errors.ts";
import type { DbContact } from "./contacts.ts";
import { json } from "./driver.ts";
import type { DbConversation } from "./conversations.ts";

/** The SQLSTATE intake_plan_holds raises (sql/280_intake_plan_guard.sql). */
export const INTAKE_PLAN_STALE = "BIP01";
/** The index that keeps one message per (chat, client_message_id) (sql/130). */
const CLIENT_ID_INDEX = "messages_conversation_client_id_key";

/**
 * Whether `err` refused a plan made from memory, nothing written: the check's refusal, or the
 * client-id index's. A plan from memory assumes its client ids are not stored yet; a stored one
 * (a sender's repeat) is refused by that unique index, in every plan the same way, which the
 * check would otherwise have to probe for (and on a plan kept without statistics, probed by
 * client id alone, sql/130's index sharing its leading column with the chat's message order).
 */
export function isStaleIntakePlan(err: unknown): boolean {
  const { code, constraint_name, constraint } = (err ?? {}) as { code?: unknown; constraint_name?: unknown; constraint?: unknown };
  return code === INTAKE_PLAN_STALE || (code === PG_UNIQUE_VIOLATION && (constraint_name ?? constraint) === CLIENT_ID_INDEX);
}

/** What a remembered plan took for granted. */
export interface PlannedFrom {
  /** Its chats' conversations: the same row, channel, status, handler and contact. */
  conversations: DbConversation[];
  /** Its senders: the same row with every field a message, its update or its events show. */
  contacts: DbContact[];
}

/** A batch planned from the look-ups, under the lock: nothing to check. */
export const NOTHING_PLANNED: PlannedFrom = { conversations: [], contacts: [] };

/**
 * A select that raises INTAKE_PLAN_STALE unless everything the parameters `$chats` and
 * `$senders` (plannedStateParams: JSON texts) say still holds. A conversation's activity (its
 * count, last message, times) may have moved: the plan never read it, and the touch adds to
 * whatever is stored. Every row is looked for by its primary key in an EXISTS of its own, a
 * subplan run per planned row, so the plan kept for it probes the same way whatever the tables
 * held when it was made: written as a join, the plan kept at a few hundred to a few thousand
 * chats hash-joined the whole primary-key index of conversations and of contacts on every write
 * (a lone message's write 1.30 ms instead of 0.72 at 1,000 chats). A row deleted, or made again
 * under a new id, is not found: the plan is refused.
 */
export function plannedStateHolds(chats: number, senders: number): string {
  return `select intake_plan_holds(
       coalesce((select bool_and(exists (select from conversations c where c.id = e.id
           and c.bot_id is not distinct from e.bot_id and c.chat_id is not distinct from e.chat_id
           and c.channel is not distinct from e.channel and c.status::text is not distinct from e.status
           and c.handled_by is not distinct from e.handled_by and c.contact_id is not distinct from e.contact_id))
         from json_to_recordset($${chats}::text::json)
           as e(id uuid, bot_id uuid, chat_id text, channel text, status text, handled_by text, contact_id uuid)), true)
       and coalesce((select bool_and(exists (select from contacts k where k.id = e.id
           and k.bot_id is not distinct from e.bot_id and k.contact_key is not distinct from e.contact_key
           and k.number is not distinct from e.number and k.external_user_id is not distinct from e.external_user_id
           and k.first_name is not distinct from e.first_name and k.last_name is not distinct from e.last_name and k.name is not distinct from e.name
           and k.email is not distinct from e.email and k.phone is not distinct from e.phone and k.attributes is not distinct from e.attributes))
         from json_to_recordset($${senders}::text::json)
           as e(id uuid, bot_id uuid, contact_key text, number int8, external_user_id text, first_name text, last_name text,
                name text, email text, phone text, attributes jsonb)), true)) as holds`;
}

/** The parameters of plannedStateHolds, in order: the chats, then the senders, as JSON texts. */
export function plannedStateParams({ conversations: chats, contacts }: PlannedFrom): [string, string] {
  return [
    json(chats.map((c) => ({
      id: c.id, bot_id: c.bot_id, chat_id: c.chat_id, channel: c.channel, status: c.status, handled_by: c.handled_by, contact_id: c.contact_id,
    }))),
    json(contacts.map((c) => ({
      id: c.id, bot_id: c.bot_id, contact_key: c.contact_key, number: c.number, external_user_id: c.external_user_id,
      first_name: c.first_name, last_name: c.last_name, name: c.name, email: c.email, phone: c.phone, attributes: c.attributes ?? {},
    }))),
  ];
}
