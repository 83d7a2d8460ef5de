-- Contacts, conversations and messages: the inbox. owner_id is copied onto the rows the
-- inbox lists and searches so every inbox query starts from one index on the owner.

create extension if not exists pg_trgm;

-- Per-bot counters for the integer ids Telegram-style clients need. One row per bot,
-- updated inside the transaction that uses the number, so numbers are never reused.
alter table bots
  add column last_message_id bigint not null default 0,
  add column last_update_id bigint not null default 0,
  add column last_conversation_number bigint not null default 0,
  add column last_contact_number bigint not null default 0;

create table contacts (
  id uuid primary key default gen_random_uuid(),
  bot_id uuid not null references bots(id) on delete cascade,
  owner_id uuid not null,
  number bigint not null,
  -- How the source identifies the person: ext:<id>, email:<address>, phone:<digits> or chat:<chat_id>.
  contact_key text not null,
  external_user_id text,
  first_name text,
  last_name text,
  name text,
  email text,
  phone text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (bot_id, number),
  unique (bot_id, contact_key)
);
create index contacts_name_trgm on contacts using gin (name gin_trgm_ops);
create index contacts_email_trgm on contacts using gin (email gin_trgm_ops);
create index contacts_phone_trgm on contacts using gin (phone gin_trgm_ops);

create table conversations (
  id uuid primary key default gen_random_uuid(),
  bot_id uuid not null references bots(id) on delete cascade,
  owner_id uuid not null,
  number bigint not null,
  chat_id text not null,
  channel text not null,
  status text not null default 'new' check (status in ('new', 'open', 'waiting', 'closed')),
  operator_note text not null default '',
  contact_id uuid references contacts(id) on delete set null,
  message_count integer not null default 0,
  last_message_id uuid,
  last_message_at timestamptz not null default now(),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (bot_id, chat_id),
  unique (bot_id, number)
);
create index conversations_owner_activity on conversations (owner_id, last_message_at desc, id desc);
create index conversations_owner_status_activity on conversations (owner_id, status, last_message_at desc, id desc);
create index conversations_bot_activity on conversations (bot_id, last_message_at desc, id desc);
create index conversations_chat_trgm on conversations using gin (chat_id gin_trgm_ops);
create index conversations_note_trgm on conversations using gin (operator_note gin_trgm_ops);

create table messages (
  id uuid primary key default gen_random_uuid(),
  bot_id uuid not null references bots(id) on delete cascade,
  owner_id uuid not null,
  conversation_id uuid not null references conversations(id) on delete cascade,
  message_id bigint not null,
  direction text not null check (direction in ('in', 'out')),
  sender text not null check (sender in ('user', 'bot', 'operator')),
  contact_id uuid references contacts(id) on delete set null,
  -- The sender's id as the source gave it (user.id, user_id or external_user_id).
  from_id text,
  text text not null,
  reply_markup jsonb,
  metadata jsonb not null default '{}'::jsonb,
  client_message_id text,
  created_at timestamptz not null default now(),
  edited_at timestamptz,
  deleted_at timestamptz,
  unique (bot_id, message_id)
);
create unique index messages_client_id_key on messages (bot_id, client_message_id) where client_message_id is not null;
create index messages_conversation_order on messages (conversation_id, message_id desc);
create index messages_text_trgm on messages using gin (text gin_trgm_ops);

-- Outbox: written in the transaction that accepts a message; the update is appended to
-- the update log after commit and the row deleted, or republished by the relay after a crash.
create table outbox (
  bot_id uuid not null references bots(id) on delete cascade,
  update_id bigint not null,
  payload jsonb not null,
  created_at timestamptz not null default now(),
  primary key (bot_id, update_id)
);
create index outbox_created on outbox (created_at);
