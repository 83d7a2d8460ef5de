-- Teams: a bot has members, its owner and the operators the owner invited.
-- Every user-token endpoint checks membership here (domain/members.ts), not bots.owner_id.

create table bot_members (
  bot_id uuid not null references bots(id) on delete cascade,
  user_id uuid not null references users(id) on delete cascade,
  role text not null check (role in ('owner', 'operator')),
  created_at timestamptz not null default now(),
  primary key (bot_id, user_id)
);
-- "Which bots may this user see": every inbox query and the live stream start here.
create index bot_members_user_idx on bot_members (user_id, bot_id);
-- Exactly one owner per bot.
create unique index bot_members_one_owner on bot_members (bot_id) where role = 'owner';

insert into bot_members (bot_id, user_id, role, created_at)
select id, owner_id, 'owner', created_at from bots;

-- Invites by e-mail; the code is shown once to the owner and stored only as a hash.
create table bot_invites (
  id uuid primary key default gen_random_uuid(),
  bot_id uuid not null references bots(id) on delete cascade,
  email text not null,
  role text not null check (role in ('operator')),
  code_hash text not null unique,
  invited_by uuid references users(id) on delete set null,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  accepted_at timestamptz,
  accepted_by uuid references users(id) on delete set null
);
create index bot_invites_bot_idx on bot_invites (bot_id, created_at desc);
