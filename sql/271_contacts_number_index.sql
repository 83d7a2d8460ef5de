-- contacts_bot_number_idx (bot_id, number desc) repeats the unique (bot_id, number) index,
-- which the contacts list ("newest first by number", db/contacts_admin.ts) reads backwards
-- just as well: every new contact paid one more index insert for nothing, and a generic plan
-- made on empty tables probed it for the intake's (bot, contact key) look-up (docs/decisions.md,
-- round 5). test/db/migrate.test.ts keeps such repeats out.
drop index contacts_bot_number_idx;
