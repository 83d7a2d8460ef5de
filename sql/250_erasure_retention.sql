-- Erasure and retention. Expand only: old processes neither read nor write these.

-- Conversations closed more than this many days ago are deleted with their messages and
-- files by the daily retention job; null keeps them forever (the default).
alter table bots add column retention_days integer check (retention_days between 1 and 36500);

-- What an erasure removed, without personal data: who asked, when, and how much went.
create table erasures (
  id bigint generated always as identity primary key,
  bot_id uuid not null references bots(id) on delete cascade,
  erased_by uuid references users(id) on delete set null,
  reason text not null check (reason in ('request', 'retention')),
  conversations integer not null,
  messages integer not null,
  files integer not null,
  erased_at timestamptz not null default now()
);
create index erasures_bot on erasures (bot_id, erased_at desc);
-- The retention job looks for closed conversations by their last change.
create index conversations_closed_updated on conversations (bot_id, updated_at) where status = 'closed';
