// The bot card's first-run checklist: each step ticks from what the server already holds
// (the bot's conversations and its webhook), so nothing is stored for it.
import { useEffect, useState } from "preact/hooks";
import { get, type ConversationDetail, type InboxConversation, type WebhookInfo } from "./api.ts";
import { useLatest } from "./ui.tsx";

/** Enough recent conversations to find a test chat; a bot with more is past its first run. */
const RECENT_CONVERSATIONS = 20;

type Steps = { embedded: boolean; messaged: boolean; answered: boolean; connected: boolean };

async function loadSteps(botId: string, token: string): Promise<Steps> {
  const [list, webhook] = await Promise.all([
    get<InboxConversation[]>(`/api/inbox?bot_id=${botId}&limit=${RECENT_CONVERSATIONS}`),
    get<WebhookInfo>(`/api/bots/${botId}/get-webhook-info`, token).catch(() => null),
  ]);
  const fromWidget = list.filter((c) => c.channel === "widget");
  let answered = list.some((c) => c.last_message?.direction === "out");
  // The last message may be the visitor's again: the newest chat's thread says if anyone answered.
  if (!answered && list[0]) {
    const detail = await get<ConversationDetail>(`/api/inbox/${list[0].id}`);
    answered = detail.messages.some((m) => m.direction === "out");
  }
  return { embedded: fromWidget.length > 0, messaged: list.length > 0, answered, connected: Boolean(webhook?.url) };
}

export function FirstRunChecklist({ botId, token }: { botId: string; token: string }) {
  const [steps, setSteps] = useState<Steps | undefined>();
  const latest = useLatest();
  useEffect(() => {
    latest.run(() => loadSteps(botId, token)).then((result) => result && setSteps(result), () => {});
  }, [botId, token]);
  if (!steps) return null;
  const items: Array<[boolean, string, string]> = [
    [steps.embedded, "Embed the widget", "Paste the snippet below on your site."],
    [steps.messaged, "Send a test message", "Open your site and write in the chat."],
    [steps.answered, "Answer it", "Reply from the inbox (or let your bot reply)."],
    [steps.connected, "Connect a bot", "Set a webhook with the API token, or poll get-updates."],
  ];
  const done = items.filter(([ok]) => ok).length;
  return (
    <section class="card span-2 checklist" aria-labelledby="checklist-title">
      <h2 id="checklist-title">Getting started <span class="muted small">{`${done} of ${items.length} done`}</span></h2>
      <ol class="steps">
        {items.map(([ok, title, how]) => (
          <li key={title} class={ok ? "step done" : "step"} aria-label={`${title}: ${ok ? "done" : "to do"}`}>
            <span class="tick" aria-hidden="true">{ok ? "✓" : ""}</span>
            <span><strong>{title}</strong> <span class="muted small">{how}</span></span>
          </li>
        ))}
      </ol>
    </section>
  );
}
