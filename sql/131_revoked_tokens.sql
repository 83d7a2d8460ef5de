-- Log-out revokes the one token it is called with: its id (the JWT's jti) is kept here
-- until the token would have expired anyway, and every request with it is refused.
create table revoked_tokens (
  jti text primary key,
  user_id uuid not null references users (id) on delete cascade,
  expires_at timestamptz not null
);
create index revoked_tokens_expires_at_idx on revoked_tokens (expires_at);
