-- A support team's day: presence, routing, working hours, the away message and snooze.
-- Every table is beside the conversation rows, so the message write path never touches them.

-- A member's own choice of presence. No row (or choice null): automatic, online while a
-- cabinet of theirs is open (cabinet_sessions), offline otherwise.
create table member_presence (
  user_id uuid primary key references users(id) on delete cascade,
  choice text check (choice in ('online', 'away', 'offline')),
  changed_at timestamptz not null default now()
);

-- One row per open cabinet (inbox stream), refreshed while it is open; a process that dies
-- leaves rows that go stale, and a stale row counts for nothing.
create table cabinet_sessions (
  id uuid primary key,
  user_id uuid not null references users(id) on delete cascade,
  seen_at timestamptz not null default now()
);
create index cabinet_sessions_user_idx on cabinet_sessions (user_id, seen_at desc);

-- Routing per bot. The row is also the lock every routing decision of the bot takes, so
-- decisions of several processes are made one after another (never above capacity).
create table bot_routing (
  bot_id uuid primary key references bots(id) on delete cascade,
  mode text not null default 'off' check (mode in ('off', 'round_robin', 'least_busy')),
  capacity int not null default 3 check (capacity between 1 and 1000),
  updated_at timestamptz not null default now()
);
-- Round robin: the member given a conversation longest ago is next.
alter table bot_members add column last_routed_at timestamptz;

-- A bot's backend answered lately: it polled get-updates (a webhook is on the bot row).
create table bot_backend_seen (
  bot_id uuid primary key references bots(id) on delete cascade,
  polled_at timestamptz not null default now()
);

-- Working hours per bot and the away message.
create table bot_hours (
  bot_id uuid primary key references bots(id) on delete cascade,
  timezone text not null,
  weekly jsonb not null,
  holidays jsonb not null default '[]',
  away_message text not null default '',
  updated_at timestamptz not null default now()
);

-- The away message went to this conversation at: once per 12 hours.
create table conversation_away_sent (
  conversation_id uuid primary key references conversations(id) on delete cascade,
  sent_at timestamptz not null default now()
);

-- A snoozed conversation (status waiting) reopens at `until`. `claimed_until` is the lease of
-- the process reopening it: one that dies mid-way leaves the row to the next scan.
create table conversation_snoozes (
  conversation_id uuid primary key references conversations(id) on delete cascade,
  bot_id uuid not null references bots(id) on delete cascade,
  until timestamptz not null,
  claimed_until timestamptz
);
create index conversation_snoozes_due_idx on conversation_snoozes (until);
