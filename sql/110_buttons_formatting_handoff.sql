-- Formatted text, button presses, bot profile settings and the human handoff.

-- Telegram's model: plain text plus entities (offsets in UTF-16 code units). Null: none.
alter table messages add column entities jsonb;

-- Who answers the conversation: while 'human', incoming messages are not reported to the bot.
alter table conversations
  add column handled_by text not null default 'bot' check (handled_by in ('bot', 'human')),
  add column handed_over_by uuid references users(id) on delete set null,
  add column handed_over_at timestamptz;

-- A visitor's press of an inline button, kept so answerCallbackQuery finds the chat it answers.
create table callback_queries (
  id text primary key,
  bot_id uuid not null references bots(id) on delete cascade,
  conversation_id uuid not null references conversations(id) on delete cascade,
  message_id bigint not null,
  data text not null,
  created_at timestamptz not null default now(),
  answered_at timestamptz
);
create index callback_queries_bot_created on callback_queries (bot_id, created_at);

-- setMyName / setMyDescription / setMyShortDescription / setChatMenuButton, stored as sent.
create table bot_profiles (
  bot_id uuid primary key references bots(id) on delete cascade,
  name text,
  description text,
  short_description text,
  menu_button jsonb,
  updated_at timestamptz not null default now()
);
