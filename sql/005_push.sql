-- Operator push notifications (Web Push) and the settings every process must share.

-- Values generated once and shared by every process (e.g. the VAPID key pair): whoever
-- inserts first wins, the others read it back.
create table app_settings (
  key text primary key,
  value jsonb not null,
  created_at timestamptz not null default now()
);

create table push_subscriptions (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references users(id) on delete cascade,
  endpoint text not null unique,
  p256dh text not null,
  auth text not null,
  consecutive_failures integer not null default 0,
  last_success_at timestamptz,
  created_at timestamptz not null default now()
);
create index push_subscriptions_user on push_subscriptions (user_id);
