// What makes a bot's message more than text in the widget: its formatting, its inline
// buttons (a press spins until the bot answers or PRESS_TIMEOUT_MS passes; the answer shows
// as a toast or an alert), and the reply keyboard above the input. log.ts calls fill() for
// every message it draws or updates and answered() for each callback_answer event.
import { renderFormatted } from "../shared/entities.ts";
import { ApiError, type Api, type CallbackAnswer, type WidgetMessage } from "./api.ts";
import { drawReplyKeyboard, inlineKeyboard, replyKeyboardChange } from "./keyboard.ts";

/** Telegram clients give up on an unanswered press after about this long. */
export const PRESS_TIMEOUT_MS = 15_000;
/** Long enough to read a short sentence. */
const TOAST_MS = 4_000;

const div = (className: string, attrs: Record<string, string> = {}) => {
  const el = document.createElement("div");
  el.className = className;
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  el.hidden = true;
  return el;
};

export function richMessages(panel: HTMLElement, api: Api, chat: () => string, say: (text: string) => void) {
  const replyPanel = div("rk", { role: "group", "aria-label": "Reply keyboard" });
  panel.insertBefore(replyPanel, panel.querySelector("form"));
  const toast = div("toast", { role: "status" });
  const alertBox = div("alert", { role: "alertdialog", "aria-modal": "true", "aria-label": "Message from the bot" });
  const alertText = document.createElement("p");
  const ok = document.createElement("button");
  ok.type = "button";
  ok.textContent = "OK";
  ok.onclick = () => (alertBox.hidden = true);
  alertBox.append(alertText, ok);
  panel.append(toast, alertBox);

  const spinning = new Map<string, { button: HTMLButtonElement; timer: ReturnType<typeof setTimeout> }>();
  const answeredEarly = new Set<string>();
  let toastTimer: ReturnType<typeof setTimeout> | undefined;

  const stop = (button: HTMLButtonElement) => {
    button.classList.remove("busy");
    button.removeAttribute("aria-busy");
  };
  const notify = (text: string, asAlert: boolean) => {
    if (asAlert) {
      alertText.textContent = text;
      alertBox.hidden = false;
      return ok.focus();
    }
    toast.textContent = text;
    toast.hidden = false;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => (toast.hidden = true), TOAST_MS);
  };

  const press = async (button: HTMLButtonElement, messageId: string, data: string) => {
    if (button.classList.contains("busy")) return;
    button.classList.add("busy");
    button.setAttribute("aria-busy", "true");
    const timer = setTimeout(() => stop(button), PRESS_TIMEOUT_MS);
    try {
      const { callback_query_id: id } = await api.press(chat(), messageId, data);
      if (answeredEarly.delete(id)) {
        clearTimeout(timer);
        return stop(button);
      }
      spinning.set(id, { button, timer });
    } catch (err) {
      clearTimeout(timer);
      stop(button);
      notify(err instanceof ApiError ? err.message : "The button could not be pressed.", false);
    }
  };

  return {
    /**
     * Draws the message's formatted text and buttons into its bubble (again after an edit).
     * An `older` message (history paged in above) leaves the reply keyboard as newer ones set it.
     */
    fill(el: HTMLElement, m: WidgetMessage, older = false) {
      (el.children[1] as HTMLElement).replaceChildren(renderFormatted(m.text, m.entities));
      el.querySelector(".kb")?.remove();
      if (m.direction !== "out") return;
      const kb = inlineKeyboard(m.reply_markup, { press: (button, data) => void press(button, m.message_id, data) });
      if (kb) el.insertBefore(kb, el.lastChild);
      const change = replyKeyboardChange(m.reply_markup);
      if (change !== undefined && !older) drawReplyKeyboard(replyPanel, change, say);
    },
    answered(a: CallbackAnswer) {
      const pressed = spinning.get(a.callback_query_id);
      if (pressed) {
        clearTimeout(pressed.timer);
        stop(pressed.button);
        spinning.delete(a.callback_query_id);
      } else answeredEarly.add(a.callback_query_id);
      if (a.text) notify(a.text, a.show_alert);
    },
  };
}
