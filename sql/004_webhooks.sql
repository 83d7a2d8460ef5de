-- Webhooks (set-webhook), the durable queue of channel callbacks, and the delivery log the
-- cabinet shows. The update log itself is 090_update_log.sql (or JetStream).

create table webhooks (
  bot_id uuid primary key references bots(id) on delete cascade,
  -- null: no webhook now (deleted, or removed after a 410); the row keeps the last error so
  -- get-webhook-info can still say why.
  url text,
  secret_token text,
  max_connections integer not null default 40,
  -- null: every kind of update.
  allowed_updates jsonb,
  last_error_date timestamptz,
  last_error_message text,
  updated_at timestamptz not null default now()
);
-- The worker's periodic scan lists the bots that have a webhook.
create index webhooks_active_idx on webhooks (bot_id) where url is not null;

-- One row per outgoing message on a channel with a callback_url: its delivery state, shown
-- in the inbox, and the retry schedule that survives restarts.
create table callback_deliveries (
  message_id uuid primary key references messages(id) on delete cascade,
  bot_id uuid not null references bots(id) on delete cascade,
  conversation_id uuid not null references conversations(id) on delete cascade,
  -- The message's per-bot message_id: delivery order within a conversation.
  seq bigint not null,
  state text not null default 'pending' check (state in ('pending', 'delivered', 'failed')),
  attempts integer not null default 0,
  next_attempt_at timestamptz not null default now(),
  last_status integer,
  last_error text,
  created_at timestamptz not null default now(),
  finished_at timestamptz
);
create index callback_deliveries_pending_idx on callback_deliveries (bot_id, seq) where state = 'pending';
create index callback_deliveries_bot_created_idx on callback_deliveries (bot_id, created_at desc);

-- Every attempt, webhook or callback; pruned after a retention period by the worker.
create table delivery_attempts (
  id bigint generated always as identity primary key,
  bot_id uuid not null references bots(id) on delete cascade,
  kind text not null check (kind in ('webhook', 'callback')),
  update_id bigint,
  message_id uuid,
  url text not null,
  status_code integer,
  latency_ms integer not null,
  error text,
  attempted_at timestamptz not null
);
create index delivery_attempts_bot_idx on delivery_attempts (bot_id, id desc);
create index delivery_attempts_attempted_at_idx on delivery_attempts (attempted_at);

-- The callback catch-up scan reads a bot's recent outgoing messages.
create index messages_bot_out_created_idx on messages (bot_id, created_at) where direction = 'out';
