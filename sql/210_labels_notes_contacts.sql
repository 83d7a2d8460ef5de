-- Team workflow: labels on conversations, private notes with mentions, editable contacts.

-- A bot's labels: a name (what conversations carry) and a colour (what the cabinet draws).
create table bot_labels (
  id uuid primary key default gen_random_uuid(),
  bot_id uuid not null references bots(id) on delete cascade,
  name text not null,
  color text not null,
  created_at timestamptz not null default now(),
  unique (bot_id, name)
);

-- Label names on the row itself, so every snapshot (list, detail, live events, stream
-- replay) carries them with no extra query; deleting a label removes its name here too.
alter table conversations add column labels text[] not null default '{}';
create index conversations_labels_idx on conversations using gin (labels);

-- A private note is a message members see and nothing outside the team ever does.
alter table messages add column private boolean not null default false;

create table mentions (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references users(id) on delete cascade,
  bot_id uuid not null references bots(id) on delete cascade,
  conversation_id uuid not null references conversations(id) on delete cascade,
  message_id uuid not null references messages(id) on delete cascade,
  by_user_id uuid references users(id) on delete set null,
  created_at timestamptz not null default now()
);
create index mentions_user_idx on mentions (user_id, created_at desc, id desc);

-- Custom attributes an operator keeps about a contact (plan, company, …).
alter table contacts add column attributes jsonb not null default '{}'::jsonb;
create index contacts_bot_number_idx on contacts (bot_id, number desc);
