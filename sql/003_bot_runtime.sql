-- A bot backend's command list (one general list per bot, spec 2.6).
create table bot_commands (
  bot_id uuid primary key references bots(id) on delete cascade,
  commands jsonb not null default '[]'::jsonb,
  updated_at timestamptz not null default now()
);
