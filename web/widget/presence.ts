// What the widget tells a visitor while its panel is closed, and how it is connected: the
// launcher's unread count and a preview of the newest reply, the last message the visitor
// has seen (kept per widget key, so it holds on every page of the site), the connection
// label in the header, the queue of messages waiting for the server, and who replied.
import { ApiError, type Connection, type WidgetMessage } from "./api.ts";
import { fill, S, type Strings } from "./i18n.ts";

/** More than this many unread shows as "9+": the badge stays one small circle. */
const MAX_BADGE_COUNT = 9;
/** The preview is a glance, not the message: longer text is cut with an ellipsis. */
const PREVIEW_CHARS = 90;

/** A message queued while the server is unreachable is tried again this often. */
const QUEUE_RETRY_MS = 3_000;

const LABELS: Record<Connection, keyof Strings> = { connecting: "connecting", online: "online", offline: "offlineShort" };

/**
 * The message_id the visitor last saw, or null while this browser has no conversation with
 * the widget: only then does the closed widget stay off the server (no stream, no history).
 */
export function seenMemory(key: string) {
  const name = `botinbox:seen:${key}`;
  let seen: number | null = null;
  try {
    const stored = localStorage.getItem(name);
    if (stored !== null) seen = Number(stored) || 0;
  } catch {}
  return {
    get: () => seen,
    set(messageId: number) {
      if (seen !== null && messageId <= seen) return;
      seen = messageId;
      try {
        localStorage.setItem(name, String(messageId));
      } catch {}
    },
  };
}

export function unreadNotice(badge: HTMLElement, srText: HTMLElement, preview: HTMLButtonElement) {
  let count = 0;
  return {
    /** A reply the visitor has not seen, drawn while the panel is closed. */
    add(text: string, from: string) {
      count++;
      badge.textContent = count > MAX_BADGE_COUNT ? `${MAX_BADGE_COUNT}+` : String(count);
      badge.hidden = false;
      srText.textContent = fill(count > 1 ? S.unreadN : S.unread1, count);
      const short = text.length > PREVIEW_CHARS ? `${text.slice(0, PREVIEW_CHARS - 1)}…` : text;
      preview.textContent = `${from}: ${short}`;
      preview.hidden = false;
    },
    clear() {
      count = 0;
      badge.hidden = preview.hidden = true;
      srText.textContent = "";
    },
  };
}

export function connectionLabel(el: HTMLElement) {
  return (state: Connection) => {
    el.dataset.s = state;
    el.textContent = S[LABELS[state]];
  };
}

/** No answer, or a proxy's or the server's "not now": the message waits rather than fails. */
export const unreachable = (err: unknown) => err instanceof ApiError && (err.status === 0 || (err.status >= 502 && err.status <= 504));

export interface Queued {
  text: string;
  el: HTMLElement;
  files?: string[];
}

/**
 * Messages sent while the server was unreachable, by client id: sent again under that id
 * (the server keeps one copy) every QUEUE_RETRY_MS, when the browser is back online, and
 * when flush() is called because the stream or poll reached the server.
 */
export function offlineQueue(resend: (clientId: string, item: Queued) => void) {
  const queued = new Map<string, Queued>();
  let timer: ReturnType<typeof setInterval> | undefined;
  const flush = () => {
    for (const [clientId, item] of queued) {
      queued.delete(clientId);
      resend(clientId, item);
    }
    // Each resend that fails again re-adds itself (and the timer).
    clearInterval(timer);
    timer = undefined;
  };
  addEventListener("online", flush);
  return {
    flush,
    add(clientId: string, item: Queued) {
      queued.set(clientId, item);
      timer ??= setInterval(flush, QUEUE_RETRY_MS);
    },
    delete: (clientId: string) => queued.delete(clientId),
  };
}

/** An operator's reply shows their name and initial; returns the name, or undefined for the bot's. */
export function signed(el: HTMLElement, m: WidgetMessage): string | undefined {
  const name = m.sender === "operator" && typeof m.metadata?.operator_name === "string" ? m.metadata.operator_name : "";
  if (!name) return undefined;
  const who = el.firstChild as HTMLElement;
  const initial = document.createElement("span");
  initial.className = "av";
  initial.setAttribute("aria-hidden", "true");
  initial.textContent = name.slice(0, 1).toUpperCase();
  who.className = "agent";
  who.replaceChildren(initial, name);
  return name;
}

/** Why a message was not sent, in the visitor's words. */
export function describeError(err: unknown): string {
  if (!(err instanceof ApiError)) return `${S.notSent}.`;
  if (err.status === 429) return err.retryAfter ? fill(S.tooFastIn, err.retryAfter) : S.tooFast;
  return `${S.notSent}: ${err.message}`;
}
