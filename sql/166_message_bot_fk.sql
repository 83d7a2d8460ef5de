-- A message's bot is its conversation's bot, and the conversation already references the
-- bot (on delete cascade) while the message references the conversation (on delete
-- cascade): deleting a bot still removes its messages. The direct foreign key only cost a
-- referential check (a look-up and a key-share lock of the bot row) per inserted message.
alter table messages drop constraint messages_bot_id_fkey;
