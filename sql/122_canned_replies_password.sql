-- Canned replies per bot: "/shortcut" in the reply box inserts the text.
create table canned_replies (
  id uuid primary key default gen_random_uuid(),
  bot_id uuid not null references bots(id) on delete cascade,
  shortcut text not null,
  text text not null,
  created_by uuid references users(id) on delete set null,
  created_at timestamptz not null default now()
);
create unique index canned_replies_shortcut_key on canned_replies (bot_id, lower(shortcut));

-- Tokens issued before a password change stop working (auth/plugin.ts compares their iat).
alter table users add column password_changed_at timestamptz;
