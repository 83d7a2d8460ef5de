-- Users of the cabinet, their bots and each bot's channels.

create table users (
  id uuid primary key default gen_random_uuid(),
  email text not null,
  password_hash text not null,
  created_at timestamptz not null default now()
);
-- Emails are unique regardless of case: Bob@x.com and bob@x.com are one person.
create unique index users_email_lower_key on users (lower(email));

-- Bot numbers start high so they look like Telegram bot ids and never collide with small test literals.
create sequence bot_number_seq start with 7000000001;

create table bots (
  id uuid primary key default gen_random_uuid(),
  owner_id uuid not null references users(id) on delete cascade,
  number bigint not null unique default nextval('bot_number_seq'),
  name text not null,
  username text not null,
  description text,
  webhook_url text,
  token_hash text not null unique,
  token_encrypted text not null,
  widget_key text not null unique,
  integration_key text not null unique,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index bots_username_lower_key on bots (lower(username));
create index bots_owner_created_idx on bots (owner_id, created_at desc);

create table channels (
  bot_id uuid not null references bots(id) on delete cascade,
  channel_type text not null check (channel_type in ('web','website','widget','sitecms','crm','email','mobile_app','custom_api')),
  is_active boolean not null default true,
  config jsonb not null default '{}'::jsonb,
  updated_at timestamptz not null default now(),
  primary key (bot_id, channel_type)
);
