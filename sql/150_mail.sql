-- The e-mail channel (IMAP in, SMTP out) and mail from the platform (password reset).

-- Where a bot's mailbox reader stopped: the next UID to read under this UIDVALIDITY. A new
-- UIDVALIDITY (the server renumbered the folder) starts over; Message-IDs keep that from
-- doubling mail already taken in.
create table mail_cursors (
  bot_id uuid not null references bots(id) on delete cascade,
  mailbox text not null,
  uid_validity text not null,
  next_uid bigint not null,
  updated_at timestamptz not null default now(),
  primary key (bot_id, mailbox)
);

-- Every Message-ID seen or sent in a bot's mail conversations: threads replies
-- (In-Reply-To/References) to the conversation of the mail they answer.
create table mail_threads (
  bot_id uuid not null references bots(id) on delete cascade,
  message_id_header text not null,
  conversation_id uuid not null references conversations(id) on delete cascade,
  -- The platform message it belongs to (outgoing: the one a bounce marks failed).
  message_id uuid references messages(id) on delete cascade,
  direction text not null check (direction in ('in', 'out')),
  created_at timestamptz not null default now(),
  primary key (bot_id, message_id_header)
);

-- Outgoing mail: one row per outgoing message in an e-mail conversation, its retry
-- schedule and its fate (shown on the message in the inbox).
create table mail_deliveries (
  message_id uuid primary key references messages(id) on delete cascade,
  bot_id uuid not null references bots(id) on delete cascade,
  conversation_id uuid not null references conversations(id) on delete cascade,
  seq bigint not null,
  state text not null default 'pending' check (state in ('pending', 'delivered', 'failed')),
  attempts integer not null default 0,
  next_attempt_at timestamptz not null default now(),
  last_error text,
  -- The Message-ID header it left with, fixed at the first attempt so a retry is the same mail.
  message_id_header text,
  created_at timestamptz not null default now(),
  finished_at timestamptz
);
create index mail_deliveries_pending_idx on mail_deliveries (bot_id, seq) where state = 'pending';
create index mail_deliveries_sent_idx on mail_deliveries (bot_id, finished_at) where state = 'delivered';

-- Mail the reader did not take in (too large), so an owner can see what was refused.
create table mail_refused (
  id bigint generated always as identity primary key,
  bot_id uuid not null references bots(id) on delete cascade,
  uid_validity text not null,
  uid bigint not null,
  sender text,
  subject text,
  size_bytes bigint not null,
  reason text not null,
  created_at timestamptz not null default now(),
  unique (bot_id, uid_validity, uid)
);

-- Password reset links: only a hash of the token is kept; used once, valid for an hour.
create table password_resets (
  token_hash text primary key,
  user_id uuid not null references users(id) on delete cascade,
  expires_at timestamptz not null,
  used_at timestamptz,
  created_at timestamptz not null default now()
);
create index password_resets_user_idx on password_resets (user_id);
