// The bot's reply_markup in the widget: an inline keyboard under its message (callback
// buttons post a press, url buttons open http(s)/tg links only), and a reply keyboard
// above the input whose buttons send their label. Labels only ever go in as text.
import { safeUrl } from "../shared/entities.ts";
import { S } from "./i18n.ts";

type Markup = Record<string, unknown> | null | undefined;
type Button = Record<string, unknown>;

export interface InlineHooks {
  /** The visitor pressed a callback button; the button spins until an answer or a timeout. */
  press(button: HTMLButtonElement, data: string): void;
}

const rowsOf = (markup: Markup, field: string): Button[][] =>
  Array.isArray(markup?.[field]) ? (markup![field] as unknown[]).filter(Array.isArray).map((r) => (r as unknown[]).map((b) => (typeof b === "string" ? { text: b } : (b as Button) ?? {}))) : [];

const label = (b: Button) => (typeof b.text === "string" ? b.text : "");

/** The inline keyboard of a message, or null when it has none. */
export function inlineKeyboard(markup: Markup, hooks: InlineHooks): HTMLElement | null {
  const rows = rowsOf(markup, "inline_keyboard");
  if (rows.length === 0) return null;
  const kb = document.createElement("div");
  kb.className = "kb";
  kb.setAttribute("role", "group");
  kb.setAttribute("aria-label", S.buttons);
  for (const row of rows) {
    const line = document.createElement("div");
    line.className = "kr";
    for (const b of row) {
      const href = typeof b.url === "string" ? safeUrl(b.url) : null;
      let el: HTMLElement;
      if (href) {
        el = document.createElement("a");
        el.setAttribute("href", href);
        el.setAttribute("target", "_blank");
        el.setAttribute("rel", "noopener noreferrer nofollow");
      } else {
        const button = (el = document.createElement("button"));
        button.type = "button";
        const data = b.callback_data;
        if (typeof data === "string") button.onclick = () => hooks.press(button, data);
        // A url that is not http(s)/tg, or a kind the widget cannot act on: shown, not usable.
        else button.disabled = true;
      }
      el.className = "kbb";
      el.textContent = label(b);
      line.append(el);
    }
    kb.append(line);
  }
  return kb;
}

/** Whether a bot message changes the reply keyboard: a new one, a removal, or neither (undefined). */
export function replyKeyboardChange(markup: Markup): { rows: string[][]; oneTime: boolean } | null | undefined {
  if (markup?.remove_keyboard === true) return null;
  const rows = rowsOf(markup, "keyboard").map((row) => row.map(label).filter(Boolean)).filter((r) => r.length);
  return rows.length ? { rows, oneTime: markup?.one_time_keyboard === true } : undefined;
}

/** Draws the reply keyboard into `panel` (emptied when null); a press sends the label. */
export function drawReplyKeyboard(panel: HTMLElement, keyboard: { rows: string[][]; oneTime: boolean } | null, say: (text: string) => void): void {
  panel.replaceChildren();
  panel.hidden = !keyboard;
  if (!keyboard) return;
  for (const row of keyboard.rows) {
    const line = document.createElement("div");
    line.className = "kr";
    for (const text of row) {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "kbb";
      button.textContent = text;
      button.onclick = () => {
        if (keyboard.oneTime) drawReplyKeyboard(panel, null, say);
        say(text);
      };
      line.append(button);
    }
    panel.append(line);
  }
}
