-- Assignment and per-user read state. Kept apart from the conversations row so the
-- message write path never touches them and they never touch it.

-- At most one assignee per conversation; no row = unassigned. A member removed from the bot
-- loses their assignments (domain/members.ts), a deleted user through the cascade.
create table conversation_assignees (
  conversation_id uuid primary key references conversations(id) on delete cascade,
  bot_id uuid not null references bots(id) on delete cascade,
  user_id uuid not null references users(id) on delete cascade,
  assigned_at timestamptz not null default now()
);
-- "Mine": the user's assignments, and a member's removal.
create index conversation_assignees_user_idx on conversation_assignees (user_id, bot_id);

-- A user's read marker per conversation: every incoming message with a higher per-bot
-- message_id is unread for that user.
create table conversation_reads (
  user_id uuid not null references users(id) on delete cascade,
  conversation_id uuid not null references conversations(id) on delete cascade,
  last_read_message_id bigint not null,
  updated_at timestamptz not null default now(),
  primary key (user_id, conversation_id)
);
create index conversation_reads_conversation_idx on conversation_reads (conversation_id);

-- The inbox now lists per bot the user is a member of (db/inbox_list.ts), never per owner:
-- the owner indexes give way to one per (bot, status), so a message still updates as many.
drop index conversations_owner_activity;
drop index conversations_owner_status_activity;
create index conversations_bot_status_activity on conversations (bot_id, status, last_message_at desc, id desc);
-- The contact panel lists a contact's other conversations.
create index conversations_contact_idx on conversations (contact_id, last_message_at desc) where contact_id is not null;
