-- Short pending lists on every GIN index the write paths feed (issue 23). With fastupdate a
-- GIN index queues new entries in a pending list and merges it into the index when it passes
-- gin_pending_list_limit (4 MB by default), inside whichever insert crosses it: that
-- transaction then stalls for tens of milliseconds, and with it every request of the batches
-- waiting behind it (the intake's p99). At 512 kB the merges are eight times as frequent and
-- each an eighth as long, the list stays in cache, and searches scan a shorter list.
-- Measured (bench/ingest.ts production, 10 bots, medians of 3, same minutes as the naive
-- server): p99 45.5 → 32.2 ms, PostgreSQL CPU 0.197 → 0.187 ms per message, msgs/s ×0.90 →
-- ×0.94 of naive. Turning fastupdate off instead: p99 36 ms but PostgreSQL CPU +37 %.
alter index messages_text_trgm set (gin_pending_list_limit = 512);
alter index messages_attachments set (gin_pending_list_limit = 512);
alter index conversations_chat_trgm set (gin_pending_list_limit = 512);
alter index conversations_note_trgm set (gin_pending_list_limit = 512);
alter index conversations_labels_idx set (gin_pending_list_limit = 512);
alter index contacts_name_trgm set (gin_pending_list_limit = 512);
alter index contacts_email_trgm set (gin_pending_list_limit = 512);
alter index contacts_phone_trgm set (gin_pending_list_limit = 512);
