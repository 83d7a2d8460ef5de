// The check of a group commit planned from what its process remembered (actors/intake-cache.ts)
// instead of from the look-ups: sent right behind the lock, with the writes and COMMIT behind it,
// so the batch costs one round trip instead of two. Under the lock it compares what the plan
// used with what is stored, and raises (sql/280) when any of it changed: the statements behind
// it then fail, COMMIT rolls back, and the batch is planned again from the look-ups.
import type { DbContact } from "./contacts.ts";
import type { DbConversation } from "./conversations.ts";
import type { Queryable } from "./driver.ts";

/** The SQLSTATE intake_plan_holds raises (sql/280_intake_plan_guard.sql). */
export const INTAKE_PLAN_STALE = "BIP01";

/** Whether `err` is the check's refusal: the plan's state had changed, nothing was written. */
export function isStaleIntakePlan(err: unknown): boolean {
  return (err as { code?: unknown } | undefined)?.code === INTAKE_PLAN_STALE;
}

/** What a remembered plan took for granted. */
export interface PlannedFrom {
  /** Its client_message_ids, each with its chat's conversation: none may be stored yet (a repeat is answered from the look-ups). */
  clientIds: { conversationId: string; clientId: string }[];
  /** Its chats' conversations: the same row, channel, status, handler and contact. */
  conversations: DbConversation[];
  /** Its senders: the same row with every field a message, its update or its events show. */
  contacts: DbContact[];
}

/**
 * Raises INTAKE_PLAN_STALE unless everything `planned` says still holds. A conversation's
 * activity (its count, last message, times) may have moved: the plan never read it, and the
 * touch adds to whatever is stored. Every row is found by its primary key and a client id by
 * its chat's unique (conversation, client id) index, the only index matching both columns, so
 * the plan kept for this statement probes the same way whatever the tables held when it was
 * made (the look-ups, by bot and key, need statistics for that: actors/lookup-plan-gate.ts).
 * A row deleted, or made again under a new id, is not found: the plan is refused.
 */
export async function expectPlannedState(db: Queryable, planned: PlannedFrom): Promise<void> {
  const { clientIds, conversations: chats, contacts } = planned;
  await db.query(
    `select intake_plan_holds(
       not exists (select 1 from unnest($1::uuid[], $2::text[]) as k(conversation_id, client_id)
         cross join lateral (select 1 from messages m where m.conversation_id = k.conversation_id and m.client_message_id = k.client_id
           and m.client_message_id is not null offset 0) m)
       and coalesce((select bool_and(c.bot_id is not distinct from e.bot_id and c.chat_id is not distinct from e.chat_id
           and c.channel is not distinct from e.channel and c.status::text is not distinct from e.status
           and c.handled_by is not distinct from e.handled_by and c.contact_id is not distinct from e.contact_id)
         from unnest($3::uuid[], $4::uuid[], $5::text[], $6::text[], $7::text[], $8::text[], $9::uuid[])
           as e(id, bot_id, chat_id, channel, status, handled_by, contact_id)
         left join conversations c on c.id = e.id), true)
       and coalesce((select bool_and(k.bot_id is not distinct from e.bot_id and k.contact_key is not distinct from e.contact_key
           and k.number is not distinct from e.number and k.external_user_id is not distinct from e.external_user_id
           and k.first_name is not distinct from e.first_name and k.last_name is not distinct from e.last_name and k.name is not distinct from e.name
           and k.email is not distinct from e.email and k.phone is not distinct from e.phone and k.attributes is not distinct from e.attributes::jsonb)
         from unnest($10::uuid[], $11::uuid[], $12::text[], $13::int8[], $14::text[], $15::text[], $16::text[], $17::text[], $18::text[], $19::text[], $20::text[])
           as e(id, bot_id, contact_key, number, external_user_id, first_name, last_name, name, email, phone, attributes)
         left join contacts k on k.id = e.id), true))`,
    [
      clientIds.map((k) => k.conversationId), clientIds.map((k) => k.clientId),
      chats.map((c) => c.id), chats.map((c) => c.bot_id), chats.map((c) => c.chat_id), chats.map((c) => c.channel),
      chats.map((c) => c.status), chats.map((c) => c.handled_by), chats.map((c) => c.contact_id),
      contacts.map((c) => c.id), contacts.map((c) => c.bot_id), contacts.map((c) => c.contact_key), contacts.map((c) => c.number),
      contacts.map((c) => c.external_user_id), contacts.map((c) => c.first_name), contacts.map((c) => c.last_name), contacts.map((c) => c.name),
      contacts.map((c) => c.email), contacts.map((c) => c.phone), contacts.map((c) => JSON.stringify(c.attributes ?? {})),
    ],
  );
}
