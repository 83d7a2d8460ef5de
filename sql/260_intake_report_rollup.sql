-- The intake's group commit writes its own report roll-up rows (src/db/intake.ts: the new
-- conversations' report rows with their first incoming message, the batch's quarter counts,
-- and first_in_at of known conversations), in the statements it already runs. The two
-- statement-level triggers below would do the same work again in SPI statements of their own
-- (0.43 ms of PostgreSQL CPU per accepted message, measured: pg 1.00 → 0.57 ms/msg with them
-- off), so a transaction that has written its roll-up says so (`botinbox.report_rollup`,
-- transaction-local) and they return at once. Every other writer is unchanged.
-- The bodies are sql/220's and sql/221's; a later change to either keeps the first test.
create or replace function report_conversations_added() returns trigger language plpgsql as $$
begin
  if current_setting('botinbox.report_rollup', true) = 'written' then return null; end if;
  insert into report_conversations (conversation_id, bot_id, channel, created_at)
  select n.id, n.bot_id, n.channel, n.created_at from added n;
  return null;
end $$;

create or replace function report_messages_added() returns trigger language plpgsql as $$
begin
  if current_setting('botinbox.report_rollup', true) = 'written' then return null; end if;
  insert into report_incoming_quarters as q (bot_id, channel, quarter, incoming)
  select r.bot_id, r.channel, date_bin('15 minutes', a.created_at, timestamptz '2001-01-01 00:00:00+00'), count(*)
  from added a join report_conversations r on r.conversation_id = a.conversation_id
  where a.direction = 'in' and not a.private
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
              from added a where not a.private) b
        group by b.conversation_id) f
  where r.conversation_id = f.conversation_id
    and ((f.first_in is not null and (r.first_in_at is null or f.first_in < r.first_in_at))
      or (r.first_response_at is null and f.first_out is not null and coalesce(r.first_in_at, f.first_in) is not null)
      or (f.operator and not r.had_operator_message));
  return null;
end $$;
