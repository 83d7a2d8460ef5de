-- Webhook updates delivered (a 2xx, or skipped as expired or unwanted) above the bot's
-- confirmed watermark. The log forgets only below a watermark, so the worker may confirm no
-- further than the first update still undelivered (a chat stuck failing holds it back) while
-- it delivers every other chat beyond it; these rows let a worker taking over the bot skip
-- what was delivered there instead of resending the whole backlog. The holder writes them in
-- coalesced batches and deletes them once its confirms pass them: a row below the watermark
-- is only garbage (the log never returns those updates again).
create table webhook_delivered (
  bot_id uuid not null references bots(id) on delete cascade,
  update_id bigint not null,
  primary key (bot_id, update_id)
);
