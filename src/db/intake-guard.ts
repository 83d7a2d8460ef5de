// The check of a group commit planned from what its process remembered (actors/intake-cache.ts)
// instead of from the look-ups: part of the batch's write statement, sent right behind the lock
// with COMMIT behind it, so the batch costs one round trip instead of two. Running after the
// lock, in the write's own snapshot, it compares what the plan used with what is stored, and
// raises (sql/280) when any of it changed: the write fails whole, COMMIT rolls back, and the
// batch is planned again from the look-ups.
import { PG_UNIQUE_VIOLATION } from "../core/errors.ts";
import type { DbContact } from "./contacts.ts";
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
 * A select that raises INTAKE_PLAN_STALE unless everything the parameters from `$first` on
 * (plannedStateParams) say still holds. A conversation's activity (its count, last message,
 * times) may have moved: the plan never read it, and the touch adds to whatever is stored.
 * Every row is found by its primary key, so the plan kept for it probes the same way whatever
 * the tables held when it was made. A row deleted, or made again under a new id, is not
 * found: the plan is refused.
 */
export function plannedStateHolds(first: number): string {
  const $ = (i: number) => `$${first + i}`;
  return `select intake_plan_holds(
       coalesce((select bool_and(c.bot_id is not distinct from e.bot_id and c.chat_id is not distinct from e.chat_id
           and c.channel is not distinct from e.channel and c.status::text is not distinct from e.status
           and c.handled_by is not distinct from e.handled_by and c.contact_id is not distinct from e.contact_id)
         from unnest(${$(0)}::uuid[], ${$(1)}::uuid[], ${$(2)}::text[], ${$(3)}::text[], ${$(4)}::text[], ${$(5)}::text[], ${$(6)}::uuid[])
           as e(id, bot_id, chat_id, channel, status, handled_by, contact_id)
         left join conversations c on c.id = e.id), true)
       and coalesce((select bool_and(k.bot_id is not distinct from e.bot_id and k.contact_key is not distinct from e.contact_key
           and k.number is not distinct from e.number and k.external_user_id is not distinct from e.external_user_id
           and k.first_name is not distinct from e.first_name and k.last_name is not distinct from e.last_name and k.name is not distinct from e.name
           and k.email is not distinct from e.email and k.phone is not distinct from e.phone and k.attributes is not distinct from e.attributes::jsonb)
         from unnest(${$(7)}::uuid[], ${$(8)}::uuid[], ${$(9)}::text[], ${$(10)}::int8[], ${$(11)}::text[], ${$(12)}::text[], ${$(13)}::text[],
                     ${$(14)}::text[], ${$(15)}::text[], ${$(16)}::text[], ${$(17)}::text[])
           as e(id, bot_id, contact_key, number, external_user_id, first_name, last_name, name, email, phone, attributes)
         left join contacts k on k.id = e.id), true)) as holds`;
}

/** The parameters of plannedStateHolds, in order. */
export function plannedStateParams({ conversations: chats, contacts }: PlannedFrom): unknown[] {
  return [
    chats.map((c) => c.id), chats.map((c) => c.bot_id), chats.map((c) => c.chat_id), chats.map((c) => c.channel),
    chats.map((c) => c.status), chats.map((c) => c.handled_by), chats.map((c) => c.contact_id),
    contacts.map((c) => c.id), contacts.map((c) => c.bot_id), contacts.map((c) => c.contact_key), contacts.map((c) => c.number),
    contacts.map((c) => c.external_user_id), contacts.map((c) => c.first_name), contacts.map((c) => c.last_name), contacts.map((c) => c.name),
    contacts.map((c) => c.email), contacts.map((c) => c.phone), contacts.map((c) => JSON.stringify(c.attributes ?? {})),
  ];
}
