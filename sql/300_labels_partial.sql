-- Nearly every conversation carries no label, yet the labels' GIN index kept an empty-item
-- entry for each new conversation and, since a message's touch of its conversation is not HOT
-- (last_message_at is indexed), another for every message after it: 172 bytes of WAL per
-- message in the 10-bot ingest run, a pending-list append each time. A filter by label asks for
-- a non-empty array before `@>` (inbox_list.ts, labels.ts), so the planner proves this
-- predicate and uses the partial index; an update whose new row has no label adds nothing to it.
drop index conversations_labels_idx;
create index conversations_labels_idx on conversations using gin (labels) with (gin_pending_list_limit = 512) where labels <> '{}';
