// The inbox's view of what bots send beyond text: formatted messages (shared renderer,
// text nodes only), the buttons under them (shown, not pressable: the visitor presses
// them), and who handles the conversation with the take over / give back control.
import { renderFormatted } from "../shared/entities.ts";
import { post, type Conversation, type Message } from "./api.ts";
import { h, toast } from "./dom.ts";

const BUTTON_STYLE = "border:1px solid currentColor;border-radius:6px;padding:1px 8px;font-size:12px;opacity:.8";

/** Inline styles through the CSSOM, which the cabinet's Content-Security-Policy allows (style attributes it refuses). */
function styled<T extends HTMLElement>(el: T, css: string): T {
  el.style.cssText = css;
  return el;
}

/** A message's text as the visitor sees it, with its inline and reply keyboard labels. */
export function messageText(m: Message): HTMLElement {
  const text = h("div", { class: "text" });
  if (m.metadata?.callback_query) {
    text.append(styled(h("span", null, "Pressed the button "), "font-style:italic;opacity:.8"), h("strong", null, `“${m.text}”`));
    return text;
  }
  text.append(renderFormatted(m.text, m.entities));
  const markup = m.reply_markup ?? {};
  const rows = [...(Array.isArray(markup.inline_keyboard) ? markup.inline_keyboard : []), ...(Array.isArray(markup.keyboard) ? markup.keyboard : [])];
  const labels = rows.flatMap((row: unknown) => (Array.isArray(row) ? row : []))
    .map((b: unknown) => (typeof b === "string" ? b : typeof (b as { text?: unknown })?.text === "string" ? (b as { text: string }).text : ""))
    .filter(Boolean);
  if (labels.length) {
    const buttons = h("div", { class: "buttons", "aria-label": "Buttons shown to the visitor" }, labels.map((label) => styled(h("span", null, label), BUTTON_STYLE)));
    text.append(styled(buttons, "display:flex;flex-wrap:wrap;gap:4px;margin-top:6px"));
  }
  return text;
}

/** "Handled by the bot" or "Taken over by …", with the button that switches it. */
export function handoffControl(id: string, changed: (c: Conversation) => void) {
  const state = h("span", { class: "muted small", role: "status" });
  const button = h("button", { type: "button", class: "ghost small" });
  let current: Conversation | undefined;
  button.addEventListener("click", async () => {
    if (!current) return;
    const to = current.handled_by === "bot" ? "takeover" : "release";
    button.disabled = true;
    try {
      const updated = await post<Conversation>(`/api/inbox/${id}/${to}`);
      show(updated);
      changed(updated);
      toast(to === "takeover" ? "You handle this conversation: the bot gets nothing from it" : "The bot handles this conversation again");
    } catch (err) {
      toast((err as Error).message, "error");
    } finally {
      button.disabled = false;
    }
  });
  const show = (c: Conversation) => {
    current = c;
    const human = c.handled_by === "human";
    state.textContent = !human ? "Handled by the bot" : c.handed_over_by ? "Taken over by an operator" : "Handed over by the bot";
    button.textContent = human ? "Give back to bot" : "Take over";
  };
  return { el: styled(h("div", { class: "handoff" }, state, button), "display:flex;gap:8px;align-items:center;margin-top:4px"), show };
}

/** For the conversation list: who answers, when it is not the bot (handoff). */
export const handlerLabel = (c: Conversation): string => (c.handled_by === "human" ? " · handled by a human" : "");
