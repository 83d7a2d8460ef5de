// The chat log: the conversation's bubbles in order, each settled, updated or removed as the
// server says, the typing bubble, and history paged in: the latest page on opening, older
// pages as the visitor scrolls up. Message text only ever goes through textContent.
import { ApiError, HISTORY_LIMIT, type Api, type Live, type WidgetMessage } from "./api.ts";
import { drawFiles, el as make, type WidgetFile } from "./files.ts";
import { S } from "./i18n.ts";
import { signed } from "./presence.ts";
import type { richMessages } from "./rich.ts";

/** Telegram shows a chat action for 5 s unless a message ends it sooner. */
const TYPING_MS = 5_000;
/** Scrolled this close to the top, the next older page of history is fetched. */
const OLDER_EDGE_PX = 60;

const timeOf = (iso: string) => new Date(iso).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });

export function chatLog(
  log: HTMLElement,
  api: Api,
  chat: () => string,
  /** Who answers: the panel's title. */
  title: HTMLElement,
  rich: ReturnType<typeof richMessages>,
  view: (f: WidgetFile) => void,
  /** Told of each new message once the latest page is shown. */
  listeners: ((m: WidgetMessage) => void)[],
  /** The visitor's own bubbles not yet confirmed, by client id (the panel's send adds them). */
  pending: Map<string, HTMLElement>,
  /** The offline queue: a message the server confirms is not sent again. */
  queued: { delete(clientId: string): void },
  /** A new message is shown, signed `from`. */
  arrived: (m: WidgetMessage, from: string) => void,
) {
  const byId = new Map<string, HTMLElement>();
  let cursor = 0;
  /** The latest page is not news: listeners hear of messages after it. */
  let catchingUp = true;

  const scrollDown = () => (log.scrollTop = log.scrollHeight);

  /** `older` bubbles go above what is shown (below the greeting), without moving the view. */
  const bubble = (text: string, mine: boolean, older = false): HTMLElement => {
    const el = make("div", `msg ${mine ? "in" : "out"}`);
    const body = document.createElement("span");
    body.textContent = text;
    el.append(make("span", "sr", `${mine ? S.you : title.textContent}: `), body, make("span", "meta"));
    if (!older) {
      log.append(el);
      scrollDown();
    } else {
      const greetingEl = log.querySelector(".greeting");
      if (greetingEl) greetingEl.after(el);
      else log.prepend(el);
    }
    return el;
  };
  const setMeta = (el: HTMLElement, text: string) => ((el.lastChild as HTMLElement).textContent = text);

  const settle = (el: HTMLElement, m: Pick<WidgetMessage, "id" | "message_id" | "created_at">) => {
    el.classList.remove("pending", "failed");
    el.dataset.id = m.id;
    byId.set(m.id, el);
    setMeta(el, timeOf(m.created_at));
    cursor = Math.max(cursor, Number(m.message_id));
  };

  let typing: HTMLElement | undefined;
  let typingTimer: ReturnType<typeof setTimeout> | undefined;
  const stopTyping = () => {
    typing?.remove();
    typing = undefined;
  };

  let oldest = Infinity;
  let historyDone = false;
  let loadingOlder = false;
  const show = (m: WidgetMessage, older = false) => {
    if (byId.has(m.id)) return;
    if (!older && !catchingUp) for (const fn of listeners) fn(m);
    oldest = Math.min(oldest, Number(m.message_id));
    // A button press is the inbox's record; the visitor saw the button spin instead.
    if (m.metadata?.callback_query) return void (cursor = Math.max(cursor, Number(m.message_id)));
    if (!older) {
      if (m.direction === "out") stopTyping();
      const clientId = m.metadata?.client_message_id;
      const mine = typeof clientId === "string" ? pending.get(clientId) : undefined;
      if (mine) {
        pending.delete(clientId as string);
        queued.delete(clientId as string);
        return settle(mine, m);
      }
    }
    const el = bubble(m.text, m.direction === "in", older);
    rich.fill(el, m, older);
    drawFiles(el, m.attachments ?? [], view);
    const from = signed(el, m) ?? title.textContent ?? "";
    settle(el, m);
    if (!older) arrived(m, from);
  };

  /** Scrolling up pages in older history until an incomplete page says it is all there. */
  const loadOlder = async () => {
    if (historyDone || loadingOlder || oldest === Infinity) return;
    loadingOlder = true;
    try {
      const page = await api.history(chat(), oldest);
      historyDone = page.length < HISTORY_LIMIT;
      const fromBottom = log.scrollHeight - log.scrollTop;
      for (const m of page.reverse()) show(m, true);
      log.scrollTop = log.scrollHeight - fromBottom;
    } catch {}
    loadingOlder = false;
  };
  log.addEventListener("scroll", () => {
    if (log.scrollTop < OLDER_EDGE_PX) void loadOlder();
  });

  /** What the live connection tells the log. */
  const live: Omit<Live, "state" | "status"> = {
    message: show,
    updated: (m) => {
      const el = byId.get(m.id);
      if (el) {
        rich.fill(el, m);
        drawFiles(el, m.attachments ?? [], view);
      }
    },
    deleted: (id) => {
      byId.get(id)?.remove();
      byId.delete(id);
    },
    answer: (a) => rich.answered(a),
    cursor: () => cursor,
    typing: () => {
      typing ??= bubble(S.typing, false);
      typing.classList.add("typing");
      log.append(typing);
      scrollDown();
      clearTimeout(typingTimer);
      typingTimer = setTimeout(stopTyping, TYPING_MS);
    },
  };

  return {
    bubble, setMeta, settle, scrollDown, live,
    /** The latest page of history; `status` says when the server is out of reach. */
    latest: async (status: HTMLElement) => {
      catchingUp = true;
      try {
        const page = await api.history(chat());
        historyDone = page.length < HISTORY_LIMIT;
        for (const m of page) show(m);
      } catch (err) {
        status.textContent = err instanceof ApiError && err.status === 0 ? S.offline : "";
      }
      catchingUp = false;
    },
    /** Another chat: nothing of this one stays. */
    clear: () => {
      byId.clear();
      pending.clear();
      log.replaceChildren();
      cursor = 0;
      oldest = Infinity;
      historyDone = false;
    },
  };
}
