-- Event webhooks: an owner's URL that follows the bot's conversations, messages and contacts.
-- The secret is sealed (SecretBox), shown once on creation.
create table event_webhooks (
  id uuid primary key default gen_random_uuid(),
  bot_id uuid not null references bots(id) on delete cascade,
  url text not null,
  events text[] not null,
  secret_sealed text not null,
  created_at timestamptz not null default now()
);
create index event_webhooks_bot_idx on event_webhooks (bot_id);

-- One row per (hook, event): the body is fixed when queued (what is signed and redelivered);
-- seq orders a conversation's events, the head of each conversation goes first.
create table event_deliveries (
  id uuid primary key default gen_random_uuid(),
  hook_id uuid not null references event_webhooks(id) on delete cascade,
  bot_id uuid not null,
  seq bigserial not null,
  event_key text not null,
  event text not null,
  order_key text not null,
  body text not null,
  state text not null default 'pending',
  attempts int not null default 0,
  next_attempt_at timestamptz not null default now(),
  last_status int,
  last_error text,
  created_at timestamptz not null default now(),
  -- When it was last queued (created or redelivered): retries stop 24 h after it.
  queued_at timestamptz not null default now(),
  last_attempt_at timestamptz,
  finished_at timestamptz,
  unique (hook_id, event_key)
);
create index event_deliveries_pending_idx on event_deliveries (bot_id, seq) where state = 'pending';
create index event_deliveries_hook_idx on event_deliveries (hook_id, created_at desc, seq desc);

-- What each hook last saw of a contact: a change of its fields is a contact_updated.
create table event_hook_contacts (
  hook_id uuid not null references event_webhooks(id) on delete cascade,
  contact_id uuid not null,
  fingerprint text not null,
  primary key (hook_id, contact_id)
);

-- Personal API tokens: only the SHA-256 of the token is kept.
create table api_tokens (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references users(id) on delete cascade,
  name text not null,
  scopes text[] not null,
  token_hash text not null unique,
  expires_at timestamptz,
  last_used_at timestamptz,
  revoked_at timestamptz,
  created_at timestamptz not null default now()
);
create index api_tokens_user_idx on api_tokens (user_id, created_at desc);
