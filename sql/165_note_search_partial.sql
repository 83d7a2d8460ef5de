-- Nearly every conversation has no operator note (''), yet the note's trigram index kept an
-- entry for each new conversation. Search asks for a non-empty note before the ILIKE
-- (inbox_list.ts), so the planner proves this predicate and uses the partial index.
drop index conversations_note_trgm;
create index conversations_note_trgm on conversations using gin (operator_note gin_trgm_ops) where operator_note <> '';
