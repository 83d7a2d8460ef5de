-- A group commit planned from what its process remembered (src/actors/intake-cache.ts: every
-- chat and sender known, nothing created) written by one statement outside any transaction
-- (src/db/intake-write.ts writeKnownBatchAlone): this function locks the bots' rows, then runs
-- the write in a snapshot taken after the locks were granted (a volatile PL/pgSQL function
-- takes one per statement), and PostgreSQL commits the call as the statement's own
-- transaction. Before, BEGIN with its settings, the lock and COMMIT were three more messages
-- answered one by one, and COMMIT often left only after the write's answer (issue 23,
-- docs/decisions.md round 34). Its settings are the kept plans' (src/db/intake-plans.ts
-- KEPT_PLANS): the body probes primary keys and conflict targets only.
-- The body must stay exactly WRITE_KNOWN_ALONE_BODY (test/db/intake-write-alone.test.ts): a
-- change to the write is a new function under a new name, in a new migration, because the
-- processes of the release before it still call this one.
create function intake_write_known_v1(text, uuid[], text, text, text, text, text, uuid[], text[], text, text, text)
  returns table (w_contacts json, w_conversations json, w_touched json, w_shifts json, w_report_rollup text, w_plan_holds boolean)
  language plpgsql volatile
  set plan_cache_mode = force_generic_plan
  set enable_seqscan = off
as $fn$
begin
  perform 1 from bots where id = any($2::uuid[]) order by id for update;
  return query with held as (select intake_plan_holds(
       coalesce((select bool_and(exists (select from conversations c where c.id = e.id
           and c.bot_id is not distinct from e.bot_id and c.chat_id is not distinct from e.chat_id
           and c.channel is not distinct from e.channel and c.status::text is not distinct from e.status
           and c.handled_by is not distinct from e.handled_by and c.contact_id is not distinct from e.contact_id))
         from json_to_recordset($10::text::json)
           as e(id uuid, bot_id uuid, chat_id text, channel text, status text, handled_by text, contact_id uuid)), true)
       and coalesce((select bool_and(exists (select from contacts k where k.id = e.id
           and k.bot_id is not distinct from e.bot_id and k.contact_key is not distinct from e.contact_key
           and k.number is not distinct from e.number and k.external_user_id is not distinct from e.external_user_id
           and k.first_name is not distinct from e.first_name and k.last_name is not distinct from e.last_name and k.name is not distinct from e.name
           and k.email is not distinct from e.email and k.phone is not distinct from e.phone and k.attributes is not distinct from e.attributes))
         from json_to_recordset($11::text::json)
           as e(id uuid, bot_id uuid, contact_key text, number int8, external_user_id text, first_name text, last_name text,
                name text, email text, phone text, attributes jsonb)), true)) as holds), counters as (update bots b set last_message_id = b.last_message_id + v.message_id - v.base_message_id,
       last_update_id = b.last_update_id + v.update_id - v.base_update_id,
       last_conversation_number = b.last_conversation_number + v.conversation_number - v.base_conversation_number,
       last_contact_number = b.last_contact_number + v.contact_number - v.base_contact_number
     from json_to_recordset($1::text::json) as v(id uuid, message_id int8, update_id int8, conversation_number int8, contact_number int8,
       base_message_id int8, base_update_id int8, base_conversation_number int8, base_contact_number int8)
     where b.id = v.id and b.id = any($2::uuid[])
     returning b.id, b.last_message_id - v.message_id as messages, b.last_update_id - v.update_id as updates), inserted as (insert into messages as m (id, bot_id, owner_id, conversation_id, message_id, direction, sender, contact_id, from_id, text,
                                metadata, client_message_id, created_at, attachments)
     select v.id, v.bot_id, v.owner_id, v.conversation_id, v.message_id + s.messages, 'in', 'user', v.contact_id, v.from_id, v.text,
            v.metadata, v.client_message_id, v.created_at, v.attachments
     from json_to_recordset($5::text::json) as v(bot_id uuid, owner_id uuid, id uuid, conversation_id uuid, message_id int8, contact_id uuid,
       from_id text, text text, metadata jsonb, client_message_id text, created_at timestamptz, attachments jsonb)
     join counters s on s.id = v.bot_id
     ), touched as (update conversations c set message_count = c.message_count + v.added, last_message_id = v.last_message_id,
       last_message_at = greatest(c.last_message_at, v.latest_at),
       status = case when c.status::text = any($9::text[]) then 'open' else c.status end,
       contact_id = coalesce(c.contact_id, v.contact_id), updated_at = now()
     from json_to_recordset($7::text::json) as v(id uuid, added int4, last_message_id uuid, latest_at timestamptz, contact_id uuid)
     where c.id = v.id and c.id = any($8::uuid[])
     returning c.id, c.bot_id, c.owner_id, c.number, c.chat_id, c.channel, c.status, c.operator_note,
  c.contact_id, c.message_count, c.last_message_id, c.last_message_at, c.created_at, c.updated_at,
  c.handled_by, c.handed_over_by, c.handed_over_at, c.labels), queued as (insert into outbox (bot_id, update_id, message_ref)
     select v.bot_id, v.update_id + s.updates, v.message_ref
     from json_to_recordset($6::text::json) as v(bot_id uuid, update_id int8, message_ref uuid) join counters s on s.id = v.bot_id), reported_first as (update report_conversations r set first_in_at = v.earliest_at
     from json_to_recordset($7::text::json) as v(id uuid, earliest_at timestamptz)
     where r.conversation_id = v.id and r.conversation_id = any($8::uuid[]) and (r.first_in_at is null or v.earliest_at < r.first_in_at)
     ), counted as (insert into report_incoming_quarters as q (bot_id, channel, quarter, incoming)
     select v.bot_id, v.channel, v.quarter, v.incoming
     from json_to_recordset($12::text::json) as v(bot_id uuid, channel text, quarter timestamptz, incoming int4)
     on conflict (bot_id, quarter, channel) do update set incoming = q.incoming + excluded.incoming), rolled_up as (select set_config('botinbox.report_rollup', 'written', true) as flag), unused as (select $3::text, $4::text)
     select null::json as contacts, null::json as conversations, (select json_agg(t) from touched t) as touched,
       (select json_agg(json_build_array(s.id, s.messages, s.updates)) from counters s where s.messages <> 0 or s.updates <> 0) as shifts,
       (select flag from rolled_up) as report_rollup, (select holds from held) as plan_holds;
end
$fn$;
