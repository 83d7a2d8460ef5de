-- Published updates, kept for a while after their append was acknowledged (docs/decisions.md
-- round 38). NATS JetStream acknowledges an append before it flushes it to disk (every two
-- minutes by default), so a power cut of its machine can take updates whose outbox rows were
-- already gone. Rows now move here instead of being deleted (src/outbox/forget.ts, the pump's
-- rounds); a reader that meets a gap republishes what it finds here (src/outbox/repair.ts), and
-- every relay tick deletes what is older than OUTBOX_KEEP_MS. The outbox keeps its meaning:
-- committed, not yet published.
-- No primary key: every published update passes through here, and a b-tree entry per row cost
-- more than the lookups it would serve (a gap's repair, the tails after a NATS restart: rare, and
-- over three minutes of rows). A row moves here once, from the outbox, whose key is unique.
create table outbox_kept (
  bot_id uuid not null,
  update_id int8 not null,
  payload jsonb,
  message_ref uuid,
  kept_at timestamptz not null default now()
);
-- Rows arrive in time order and leave by age: a range index of a few pages, cheap to keep up.
create index outbox_kept_at on outbox_kept using brin (kept_at);

-- The NATS server this deployment last talked to (its server_id changes at every start): only a
-- process that finds another one there looks for lost tails (src/outbox/repair.ts), so starting a
-- process against a NATS server that has run all along costs nothing.
create table nats_server_seen (
  id int primary key default 1 check (id = 1),
  server_id text not null,
  seen_at timestamptz not null default now()
);

-- A removed bot's kept updates go with it (sql/290's function, one delete more).
create or replace function bots_removed() returns trigger language plpgsql as $$
begin
  delete from conversations where bot_id = any(array(select id from removed));
  delete from contacts where bot_id = any(array(select id from removed));
  delete from outbox where bot_id = any(array(select id from removed));
  delete from outbox_kept where bot_id = any(array(select id from removed));
  return null;
end $$;
