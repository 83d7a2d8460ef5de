-- Verified widget visitors: each bot's identity secret (sealed with the server's key, as bot
-- tokens are), which the site's server uses to sign its users' ids. Kept apart from bots so
-- the public bot directory never carries it.
create table bot_identity_secrets (
  bot_id uuid primary key references bots (id) on delete cascade,
  secret_encrypted text not null,
  rotated_at timestamptz not null default now()
);

-- Chat ids beginning with "verified:" now belong to verified users (the server derives them
-- from the user id). A chat a visitor opened under such an id before is moved out of the
-- way, so the verified user of that id never joins it.
update conversations set chat_id = 'unverified-' || chat_id where chat_id like 'verified:%';
