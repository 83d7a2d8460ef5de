-- A group commit planned from what its process already knew (src/actors/intake-cache.ts) sends
-- its writes and COMMIT right behind the lock and this check, in one round trip, instead of
-- waiting for the look-ups' answer. The check runs under the bots' locks; when what it was given
-- no longer holds, it raises, the transaction's remaining statements fail and COMMIT rolls it
-- back, and the batch is planned again from the look-ups (src/db/intake-guard.ts).
create or replace function intake_plan_holds(holds boolean) returns boolean language plpgsql as $$
begin
  if not holds then
    raise exception 'the intake plan was made from state that has changed' using errcode = 'BIP01';
  end if;
  return true;
end $$;
