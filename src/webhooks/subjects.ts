// Bus subjects of webhook settings, apart from the worker so that the services announcing a
// change (native and Telegram facade) do not import the worker, which imports the facade.

/** Bus subject announcing a changed webhook (set or deleted) to every worker. */
export const webhookChangedSubject = (botId: string) => `webhooks.${botId}`;
export interface WebhookChanged {
  dropped?: boolean;
}
