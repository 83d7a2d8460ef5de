-- Reports: per-conversation facts and incoming-message counts per quarter hour, kept by
-- triggers in the transaction that writes the messages and status moves, so they are as
-- durable as the records themselves (correct across restarts, in both modes) and a report
-- never scans messages. The triggers touch these narrow tables only: the conversations row
-- the write path already updates is not written a second time.

-- One row per conversation, written at its creation and then at most a few times: its first
-- incoming message, its first response, its first operator message, its first close, its
-- first handoff, its rating. Every report reads this table by (bot, created_at).
create table report_conversations (
  conversation_id uuid primary key references conversations(id) on delete cascade,
  bot_id uuid not null,
  channel text not null,
  created_at timestamptz not null,
  first_in_at timestamptz,
  first_response_at timestamptz,
  first_closed_at timestamptz,
  had_handoff boolean not null default false,
  had_operator_message boolean not null default false,
  rating smallint,
  -- Whole seconds, computed when the row is written: reports sort integers, not timestamps.
  first_response_s integer generated always as (extract(epoch from (first_response_at - first_in_at))::integer) stored,
  resolution_s integer generated always as (extract(epoch from (first_closed_at - first_in_at))::integer) stored
) with (fillfactor = 80); -- room on the page keeps the few updates per conversation HOT (no index write)
create index report_conversations_bot_created on report_conversations (bot_id, created_at);

-- Incoming messages per (bot, channel, quarter hour in UTC). A quarter hour, not an hour:
-- every time zone's offset is a multiple of 15 minutes, so a weekday × hour heatmap in any
-- zone (India +5:30, Nepal +5:45) is exact when read from these buckets.
create table report_incoming_quarters (
  bot_id uuid not null,
  channel text not null,
  quarter timestamptz not null,
  incoming integer not null,
  primary key (bot_id, quarter, channel)
);

-- A visitor's 1..5 rating of a closed conversation, at most one per conversation.
create table conversation_ratings (
  conversation_id uuid primary key references conversations(id) on delete cascade,
  bot_id uuid not null references bots(id) on delete cascade,
  rating smallint not null check (rating between 1 and 5),
  comment text,
  created_at timestamptz not null default now()
);

insert into report_conversations (conversation_id, bot_id, channel, created_at, first_in_at, first_closed_at, had_handoff)
select c.id, c.bot_id, c.channel, c.created_at,
       (select min(m.created_at) from messages m where m.conversation_id = c.id and m.direction = 'in'),
       case when c.status = 'closed' then c.updated_at end, c.handled_by = 'human'
from conversations c;
update report_conversations r set
  first_response_at = (select min(m.created_at) from messages m where m.conversation_id = r.conversation_id and m.direction = 'out' and m.created_at >= r.first_in_at),
  had_operator_message = exists (select 1 from messages m where m.conversation_id = r.conversation_id and m.sender = 'operator')
where r.first_in_at is not null;
insert into report_incoming_quarters (bot_id, channel, quarter, incoming)
select m.bot_id, c.channel, date_bin('15 minutes', m.created_at, timestamptz '2001-01-01 00:00:00+00'), count(*)
from messages m join conversations c on c.id = m.conversation_id where m.direction = 'in' group by 1, 2, 3;

create function report_conversations_added() returns trigger language plpgsql as $$
begin
  insert into report_conversations (conversation_id, bot_id, channel, created_at)
  select n.id, n.bot_id, n.channel, n.created_at from added n;
  return null;
end $$;
create trigger report_conversations_added after insert on conversations
  referencing new table as added for each statement execute function report_conversations_added();

-- Once per insert statement (the intake writes a whole batch in one): one upsert per
-- (channel, quarter) of the batch, and an update only of conversations whose facts change.
create function report_messages_added() returns trigger language plpgsql as $$
begin
  insert into report_incoming_quarters as q (bot_id, channel, quarter, incoming)
  select r.bot_id, r.channel, date_bin('15 minutes', a.created_at, timestamptz '2001-01-01 00:00:00+00'), count(*)
  from added a join report_conversations r on r.conversation_id = a.conversation_id
  where a.direction = 'in'
  group by 1, 2, 3
  on conflict (bot_id, quarter, channel) do update set incoming = q.incoming + excluded.incoming;

  -- A first response is the first outgoing message at or after the first incoming one: of the
  -- batch's outgoing ones, after the conversation's first incoming (earlier) or the batch's own.
  update report_conversations r set
    first_in_at = least(r.first_in_at, f.first_in),
    first_response_at = coalesce(r.first_response_at, case
      when r.first_in_at is not null and f.first_out >= r.first_in_at then f.first_out
      when r.first_in_at is null then f.first_out_after_in end),
    had_operator_message = r.had_operator_message or f.operator
  from (select b.conversation_id, min(b.created_at) filter (where b.direction = 'in') as first_in,
               min(b.created_at) filter (where b.direction = 'out') as first_out,
               min(b.created_at) filter (where b.direction = 'out' and b.created_at >= b.batch_first_in) as first_out_after_in,
               bool_or(b.sender = 'operator') as operator
        from (select a.conversation_id, a.direction, a.sender, a.created_at,
                     min(a.created_at) filter (where a.direction = 'in') over (partition by a.conversation_id) as batch_first_in
              from added a) b
        group by b.conversation_id) f
  where r.conversation_id = f.conversation_id
    and ((f.first_in is not null and (r.first_in_at is null or f.first_in < r.first_in_at))
      or (r.first_response_at is null and f.first_out is not null and coalesce(r.first_in_at, f.first_in) is not null)
      or (f.operator and not r.had_operator_message));
  return null;
end $$;
create trigger report_messages_added after insert on messages
  referencing new table as added for each statement execute function report_messages_added();

-- Only a move into `closed` or to a human calls the function: the WHEN is checked without it,
-- so the intake's per-batch touch of status costs one comparison per row.
create function report_conversation_moved() returns trigger language plpgsql as $$
begin
  update report_conversations r set
    first_closed_at = case when new.status = 'closed' then coalesce(r.first_closed_at, new.updated_at) else r.first_closed_at end,
    had_handoff = r.had_handoff or (new.handled_by = 'human' and old.handled_by <> 'human')
  where r.conversation_id = new.id;
  return null;
end $$;
create trigger report_conversation_moved after update of status, handled_by on conversations for each row
  when ((new.status = 'closed' and old.status <> 'closed') or (new.handled_by = 'human' and old.handled_by <> 'human'))
  execute function report_conversation_moved();

create function report_conversation_rated() returns trigger language plpgsql as $$
begin
  update report_conversations set rating = new.rating where conversation_id = new.conversation_id;
  return null;
end $$;
create trigger report_conversation_rated after insert on conversation_ratings
  for each row execute function report_conversation_rated();
