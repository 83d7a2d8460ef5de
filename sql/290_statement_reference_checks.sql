-- The references the group commit writes in bulk (messages → conversations and contacts,
-- conversations → bots and contacts, contacts → bots, outbox → bots, report rows →
-- conversations) are checked once per statement and reference instead of once per row. A
-- foreign key runs one SPI query per inserted row, each with its own executor start and end:
-- under the 10-bot ingest load that was 16 % of PostgreSQL's CPU (AfterTriggerEndQuery, perf;
-- four checks per message on a new chat), a third more than the message's trigram index. The
-- checks below keep what the keys gave: an insert or an update naming a row that does not
-- exist fails with 23503, the rows it names are locked FOR KEY SHARE until commit (so a
-- concurrent delete waits, and then cascades to what was written), deletes cascade or set
-- null as the keys said, and a referenced id cannot change. docs/decisions.md round 20.
alter table messages drop constraint messages_conversation_id_fkey, drop constraint messages_contact_id_fkey;
alter table conversations drop constraint conversations_bot_id_fkey, drop constraint conversations_contact_id_fkey;
alter table contacts drop constraint contacts_bot_id_fkey;
alter table outbox drop constraint outbox_bot_id_fkey;
alter table report_conversations drop constraint report_conversations_conversation_id_fkey;

-- Each new row's references are probed on their parents' primary keys and locked FOR KEY SHARE,
-- one query per reference and statement; one not found fails the whole statement as a foreign
-- key would (23503). The probes must be index probes whatever the statistics say, hence
-- enable_seqscan off inside: a plan made while a table was new seq-scanned it for every check
-- (4.2 ms per check at 10,000 conversations, against 0.05). Five functions of one shape rather
-- than one taking table names: EXECUTE would plan its text again on every call.
create function reference_missing(child text, parent text) returns void language plpgsql as $$
begin
  raise foreign_key_violation using
    message = format('insert or update on table "%s" names a row of "%s" that does not exist', child, parent);
end $$;

create function messages_references_exist() returns trigger language plpgsql set enable_seqscan = off as $$
begin
  if exists (select 1 from added a where not exists (select 1 from conversations c where c.id = a.conversation_id for key share)) then
    perform reference_missing('messages', 'conversations');
  end if;
  if exists (select 1 from added a where a.contact_id is not null and not exists (select 1 from contacts c where c.id = a.contact_id for key share)) then
    perform reference_missing('messages', 'contacts');
  end if;
  return null;
end $$;
create trigger messages_references_exist after insert on messages
  referencing new table as added for each statement execute function messages_references_exist();

create function conversations_references_exist() returns trigger language plpgsql set enable_seqscan = off as $$
begin
  if exists (select 1 from added a where not exists (select 1 from bots b where b.id = a.bot_id for key share)) then
    perform reference_missing('conversations', 'bots');
  end if;
  if exists (select 1 from added a where a.contact_id is not null and not exists (select 1 from contacts c where c.id = a.contact_id for key share)) then
    perform reference_missing('conversations', 'contacts');
  end if;
  return null;
end $$;
create trigger conversations_references_exist after insert on conversations
  referencing new table as added for each statement execute function conversations_references_exist();

create function contacts_references_exist() returns trigger language plpgsql set enable_seqscan = off as $$
begin
  if exists (select 1 from added a where not exists (select 1 from bots b where b.id = a.bot_id for key share)) then
    perform reference_missing('contacts', 'bots');
  end if;
  return null;
end $$;
create trigger contacts_references_exist after insert on contacts
  referencing new table as added for each statement execute function contacts_references_exist();

create function outbox_references_exist() returns trigger language plpgsql set enable_seqscan = off as $$
begin
  if exists (select 1 from added a where not exists (select 1 from bots b where b.id = a.bot_id for key share)) then
    perform reference_missing('outbox', 'bots');
  end if;
  return null;
end $$;
create trigger outbox_references_exist after insert on outbox
  referencing new table as added for each statement execute function outbox_references_exist();

create function report_conversations_references_exist() returns trigger language plpgsql set enable_seqscan = off as $$
begin
  if exists (select 1 from added a where not exists (select 1 from conversations c where c.id = a.conversation_id for key share)) then
    perform reference_missing('report_conversations', 'conversations');
  end if;
  return null;
end $$;
create trigger report_conversations_references_exist after insert on report_conversations
  referencing new table as added for each statement execute function report_conversations_references_exist();

-- An update that points a row elsewhere: rare (a contact merge, a conversation's first sender),
-- so one row at a time, and only when the reference changes (the WHEN costs no function call).
-- tg_argv: the column, the parent table.
create function reference_exists() returns trigger language plpgsql as $$
declare held bigint;
begin
  execute format('select 1 from %I where id = $1 for key share', tg_argv[1]) using (to_jsonb(new) ->> tg_argv[0])::uuid;
  get diagnostics held = row_count;
  if held = 0 then perform reference_missing(tg_table_name, tg_argv[1]); end if;
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
-- its own (READ COMMITTED, as every transaction of ours), taken after any writer holding one of
-- the removed rows FOR KEY SHARE committed, so it sees what that writer added.
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
