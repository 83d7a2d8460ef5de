-- An incoming message's outbox row names its message instead of carrying its update's JSON
-- (issue 23). The row is only read when the process died between commit and publish (the
-- relay then builds the update from the stored message, db/outbox.ts); until then its JSON,
-- about 400 bytes a message, was escaped into an array parameter, parsed into jsonb and
-- written to the WAL, then deleted a moment later. Rows of other updates keep their payload.
alter table outbox alter column payload drop not null;
alter table outbox add column message_ref uuid;
alter table outbox add constraint outbox_payload_or_message check (payload is not null or message_ref is not null);
