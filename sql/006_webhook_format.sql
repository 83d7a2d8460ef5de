-- What a webhook is sent: 'native' Updates (set-webhook), or Telegram's shapes (setWebhook
-- through the Telegram-compatible facade), whose receivers may also answer with a method
-- to execute (Telegram's "webhook reply").
alter table webhooks add column format text not null default 'native' check (format in ('native', 'telegram'));
