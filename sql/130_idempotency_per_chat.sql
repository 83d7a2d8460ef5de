-- Idempotency keys (client_message_id / Idempotency-Key) are scoped to a chat, not to the
-- bot: a key another visitor used is a different message, and repeating it must neither
-- reveal their chat nor swallow the later message. The bot-wide index stays for the group
-- commit's look-up (one probe per key), no longer unique.
create unique index messages_conversation_client_id_key on messages (conversation_id, client_message_id) where client_message_id is not null;
drop index messages_client_id_key;
create index messages_bot_client_id_idx on messages (bot_id, client_message_id) where client_message_id is not null;
