-- Files: the bytes live in the file store (DATA_DIR/files or a JetStream Object Store
-- bucket), keyed by id; this row says whose they are and what they are. The type and the
-- dimensions were read from the bytes, never taken from the uploader's word.
create table files (
  id uuid primary key default gen_random_uuid(),
  bot_id uuid not null references bots(id) on delete cascade,
  -- The chat a visitor or operator uploaded for; null for a bot's own upload (any of its chats).
  chat_id text,
  uploaded_by text not null check (uploaded_by in ('user', 'operator', 'bot')),
  name text not null,
  mime_type text not null,
  size bigint not null,
  sha256 text not null,
  kind text not null,
  width int,
  height int,
  duration int,
  created_at timestamptz not null default now()
);
create index files_bot_created on files (bot_id, created_at);

-- A message's files, in order, as the File records it shows (without their expiring links).
alter table messages add column attachments jsonb not null default '[]'::jsonb;
-- The sweep asks "does any live message still show this file?".
create index messages_attachments on messages using gin (attachments jsonb_path_ops) where attachments <> '[]'::jsonb;
