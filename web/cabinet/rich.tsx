// The inbox's view of what bots send beyond text: formatted messages (the shared renderer,
// text nodes only), the buttons under them (shown, not pressable: the visitor presses
// them), and who handles the conversation with the take over / give back control.
import { useLayoutEffect, useRef, useState } from "preact/hooks";
import { renderFormatted } from "../shared/entities.ts";
import { post, type Conversation, type Message } from "./api.ts";
import { errorText, toast } from "./ui.tsx";

const BUTTON_STYLE = "border:1px solid currentColor;border-radius:6px;padding:1px 8px;font-size:12px;opacity:.8";

/**
 * Text with Telegram entities, drawn by the renderer the widget shares (so both stay safe
 * the same way); Preact owns the wrapper, the renderer its contents.
 */
function Formatted({ text, entities }: Pick<Message, "text" | "entities">) {
  const el = useRef<HTMLSpanElement>(null);
  useLayoutEffect(() => el.current!.replaceChildren(renderFormatted(text, entities)), [text, entities]);
  return <span ref={el} />;
}

/** The labels of a message's inline and reply keyboards. */
function buttonLabels(markup: Record<string, unknown> | null): string[] {
  const rows = [markup?.inline_keyboard, markup?.keyboard].flatMap((k) => (Array.isArray(k) ? (k as unknown[]) : []));
  return rows.flatMap((row) => (Array.isArray(row) ? (row as unknown[]) : []))
    .map((b) => (typeof b === "string" ? b : typeof (b as { text?: unknown })?.text === "string" ? (b as { text: string }).text : ""))
    .filter(Boolean);
}

/** A message's text as the visitor sees it, with its inline and reply keyboard labels. */
export function MessageText({ m }: { m: Message }) {
  // Inline styles go through the CSSOM (Preact sets style.cssText), which the cabinet's Content-Security-Policy allows.
  if (m.metadata?.callback_query) {
    return <div class="text"><span style="font-style:italic;opacity:.8">Pressed the button </span><strong>{`“${m.text}”`}</strong></div>;
  }
  const labels = buttonLabels(m.reply_markup);
  return (
    <div class="text">
      <Formatted text={m.text} entities={m.entities} />
      {labels.length > 0 && (
        <div class="buttons" aria-label="Buttons shown to the visitor" style="display:flex;flex-wrap:wrap;gap:4px;margin-top:6px">
          {labels.map((label, i) => <span key={i} style={BUTTON_STYLE}>{label}</span>)}
        </div>
      )}
    </div>
  );
}

/** "Handled by the bot" or "Taken over by …", with the button that switches it. */
export function Handoff({ conversation, changed }: { conversation: Conversation; changed: (c: Conversation) => void }) {
  const [busy, setBusy] = useState(false);
  const human = conversation.handled_by === "human";
  const toggle = async () => {
    const to = human ? "release" : "takeover";
    setBusy(true);
    try {
      changed(await post<Conversation>(`/api/inbox/${conversation.id}/${to}`));
      toast(to === "takeover" ? "You handle this conversation: the bot gets nothing from it" : "The bot handles this conversation again");
    } catch (err) {
      toast(errorText(err), "error");
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="handoff" style="display:flex;gap:8px;align-items:center;margin-top:4px">
      <span class="muted small" role="status">
        {!human ? "Handled by the bot" : conversation.handed_over_by ? "Taken over by an operator" : "Handed over by the bot"}
      </span>
      <button type="button" class="ghost small" disabled={busy} onClick={toggle}>{human ? "Give back to bot" : "Take over"}</button>
    </div>
  );
}

/** For the conversation list: who answers, when it is not the bot (handoff). */
export const handlerLabel = (c: Conversation): string => (c.handled_by === "human" ? " · handled by a human" : "");
