-- The references the group commit writes in bulk (messages → conversations and contacts,
-- conversations → bots and contacts, contacts → bots, outbox → bots, report rows →
-- conversations) are checked once per statement instead of once per row. A foreign key runs
-- one SPI query per inserted row, each with its own executor start and end: under the 10-bot
-- ingest load that was 16 % of PostgreSQL's CPU (AfterTriggerEndQuery, perf; four checks per
-- message on a new chat), a third more than the message's trigram index. The checks below
-- keep what the keys gave: an insert or an update naming a row that does not exist fails
-- with 23503, the rows it names are locked FOR KEY SHARE until commit (so a concurrent
-- delete waits, and then cascades to what was written), deletes cascade or set null as the
-- keys said, and a referenced id cannot change. docs/decisions.md round 20.
alter table messages drop constraint messages_conversation_id_fkey, drop constraint messages_contact_id_fkey;
alter table conversations drop constraint conversations_bot_id_fkey, drop constraint conversations_contact_id_fkey;
alter table contacts drop constraint contacts_bot_id_fkey;
alter table outbox drop constraint outbox_bot_id_fkey;
alter table report_conversations drop constraint report_conversations_conversation_id_fkey;

-- Locks the rows of `parent` with the given ids FOR KEY SHARE and fails as a foreign key would
-- when one is missing. Static text per parent: PL/pgSQL keeps each statement's plan, and the
-- probe is `id = any(array)` on the primary key whatever the tables hold.
create function require_rows(parent text, child text, ids uuid[]) returns void language plpgsql as $$
declare held int;
begin
  if cardinality(ids) = 0 then return; end if;
  if parent = 'bots' then
    select count(*) into held from (select 1 from bots where id = any(ids) for key share) r;
  elsif parent = 'conversations' then
    select count(*) into held from (select 1 from conversations where id = any(ids) for key share) r;
  elsif parent = 'contacts' then
    select count(*) into held from (select 1 from contacts where id = any(ids) for key share) r;
  else
    raise exception 'require_rows: unknown parent table %', parent;
  end if;
  if held < cardinality(ids) then
    raise foreign_key_violation using
      message = format('insert or update on table "%s" names a row of "%s" that does not exist', child, parent);
  end if;
end $$;

create function messages_references_exist() returns trigger language plpgsql as $$
begin
  perform require_rows('conversations', 'messages', array(select distinct conversation_id from added));
  perform require_rows('contacts', 'messages', array(select distinct contact_id from added where contact_id is not null));
  return null;
end $$;
create trigger messages_references_exist after insert on messages
  referencing new table as added for each statement execute function messages_references_exist();

create function conversations_references_exist() returns trigger language plpgsql as $$
begin
  perform require_rows('bots', 'conversations', array(select distinct bot_id from added));
  perform require_rows('contacts', 'conversations', array(select distinct contact_id from added where contact_id is not null));
  return null;
end $$;
create trigger conversations_references_exist after insert on conversations
  referencing new table as added for each statement execute function conversations_references_exist();

create function contacts_references_exist() returns trigger language plpgsql as $$
begin
  perform require_rows('bots', 'contacts', array(select distinct bot_id from added));
  return null;
end $$;
create trigger contacts_references_exist after insert on contacts
  referencing new table as added for each statement execute function contacts_references_exist();

create function outbox_references_exist() returns trigger language plpgsql as $$
begin
  perform require_rows('bots', 'outbox', array(select distinct bot_id from added));
  return null;
end $$;
create trigger outbox_references_exist after insert on outbox
  referencing new table as added for each statement execute function outbox_references_exist();

create function report_conversations_references_exist() returns trigger language plpgsql as $$
begin
  perform require_rows('conversations', 'report_conversations', array(select distinct conversation_id from added));
  return null;
end $$;
create trigger report_conversations_references_exist after insert on report_conversations
  referencing new table as added for each statement execute function report_conversations_references_exist();

-- An update that points a row elsewhere: rare (a contact merge, a conversation's first sender),
-- so one row at a time, and only when the reference changes (the WHEN costs no function call).
-- tg_argv: the column, the parent table.
create function reference_exists() returns trigger language plpgsql as $$
begin
  perform require_rows(tg_argv[1], tg_table_name, array[(to_jsonb(new) ->> tg_argv[0])::uuid]);
  return null;
end $$;
create trigger messages_conversation_exists after update of conversation_id on messages for each row
  when (new.conversation_id is distinct from old.conversation_id) execute function reference_exists('conversation_id', 'conversations');
create trigger messages_contact_exists after update of contact_id on messages for each row
  when (new.contact_id is not null and new.contact_id is distinct from old.contact_id) execute function reference_exists('contact_id', 'contacts');
create trigger conversations_bot_exists after update of bot_id on conversations for each row
  when (new.bot_id is distinct from old.bot_id) execute function reference_exists('bot_id', 'bots');
create trigger conversations_contact_exists after update of contact_id on conversations for each row
  when (new.contact_id is not null and new.contact_id is distinct from old.contact_id) execute function reference_exists('contact_id', 'contacts');
create trigger contacts_bot_exists after update of bot_id on contacts for each row
  when (new.bot_id is distinct from old.bot_id) execute function reference_exists('bot_id', 'bots');
create trigger outbox_bot_exists after update of bot_id on outbox for each row
  when (new.bot_id is distinct from old.bot_id) execute function reference_exists('bot_id', 'bots');
create trigger report_conversations_conversation_exists after update of conversation_id on report_conversations for each row
  when (new.conversation_id is distinct from old.conversation_id) execute function reference_exists('conversation_id', 'conversations');

-- What the keys did on delete, once per statement. Each statement below runs with a snapshot of
-- its own, taken after any writer holding one of the removed rows FOR KEY SHARE committed.
create function bots_removed() returns trigger language plpgsql as $$
begin
  delete from conversations where bot_id = any(array(select id from removed));
  delete from contacts where bot_id = any(array(select id from removed));
  delete from outbox where bot_id = any(array(select id from removed));
  return null;
end $$;
create trigger bots_removed after delete on bots
  referencing old table as removed for each statement execute function bots_removed();

create function conversations_removed() returns trigger language plpgsql as $$
begin
  delete from messages where conversation_id = any(array(select id from removed));
  delete from report_conversations where conversation_id = any(array(select id from removed));
  return null;
end $$;
create trigger conversations_removed after delete on conversations
  referencing old table as removed for each statement execute function conversations_removed();

create function contacts_removed() returns trigger language plpgsql as $$
begin
  update messages set contact_id = null where contact_id = any(array(select id from removed));
  update conversations set contact_id = null where contact_id = any(array(select id from removed));
  return null;
end $$;
create trigger contacts_removed after delete on contacts
  referencing old table as removed for each statement execute function contacts_removed();

-- A referenced id never changes (the keys refused it).
create function referenced_id_kept() returns trigger language plpgsql as $$
begin
  raise foreign_key_violation using message = format('the id of a row of "%s" is referenced and cannot change', tg_table_name);
end $$;
create trigger bots_id_kept before update of id on bots for each row when (new.id <> old.id) execute function referenced_id_kept();
create trigger conversations_id_kept before update of id on conversations for each row when (new.id <> old.id) execute function referenced_id_kept();
create trigger contacts_id_kept before update of id on contacts for each row when (new.id <> old.id) execute function referenced_id_kept();
