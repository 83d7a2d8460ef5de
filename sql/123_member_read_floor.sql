-- Where a member's unread count starts on a conversation they never opened: the bot's last
-- message_id when they joined. Without it a new operator (or every owner, right after this
-- upgrade) would find the whole history unread.
alter table bot_members add column read_floor bigint not null default 0;
update bot_members m set read_floor = b.last_message_id from bots b where b.id = m.bot_id;
