-- The table-backed update log (embedded default; production uses the JetStream stream UPDATES).
-- No foreign key to bots: the log is the same contract as its JetStream twin, which knows
-- nothing of bots; deleting a bot drops its log through UpdateLog.drop.

create table update_log (
  bot_id uuid not null,
  update_id bigint not null,
  payload jsonb not null,
  -- When the update was first appended: the Update's date, and the start of its 24 h.
  appended_at timestamptz not null,
  primary key (bot_id, update_id)
);
-- The periodic sweep deletes expired updates of every bot at once.
create index update_log_appended_at_idx on update_log (appended_at);

-- Per bot, every update_id below `below` is confirmed: a relay that appends one of them again
-- after a crash must not bring it back, so reads filter on this, not only on deleted rows.
create table update_log_confirmed (
  bot_id uuid primary key,
  below bigint not null
);
