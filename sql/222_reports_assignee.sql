-- Reports by agent read the assignee from the conversation's fact row, not from a join with
-- conversation_assignees: at 100k conversations over 90 days the join (hash of every
-- assignment of the bot, then percentiles per day and agent) made that one report 3× slower
-- than the same report by channel. Assignments are rare writes (a routing decision, a pick,
-- a member's removal), so a row trigger keeps the column; the fact row's update stays HOT
-- (its one index, (bot_id, created_at), never changes).
alter table report_conversations add column assignee_id uuid;

update report_conversations r set assignee_id = a.user_id
from conversation_assignees a where a.conversation_id = r.conversation_id;

create function report_conversation_assigned() returns trigger language plpgsql as $$
begin
  if tg_op = 'DELETE' then
    -- Only the assignee this row named: a delete that follows a newer assignment changes nothing.
    update report_conversations set assignee_id = null
    where conversation_id = old.conversation_id and assignee_id = old.user_id;
  else
    update report_conversations set assignee_id = new.user_id
    where conversation_id = new.conversation_id and assignee_id is distinct from new.user_id;
  end if;
  return null;
end $$;
create trigger report_conversation_assigned after insert or update or delete on conversation_assignees
  for each row execute function report_conversation_assigned();
