// The widget's side of the public API: config, history, sending, and live messages over
// Server-Sent Events with a polling fallback. No credentials ever leave the host page.
// Wire types are the server's own (type-only imports: nothing of the server is bundled).
import type { CallbackAnsweredEvent } from "../../src/core/events.ts";
import type { Message } from "../../src/core/records.ts";
import type { AcceptedMessage } from "../../src/http/messages/model.ts";
import type { WidgetConfigResult } from "../../src/http/widget/model.ts";
import type { SiteUser } from "./visitor.ts";

/** What the history and the stream carry: the server's message record. */
export type WidgetMessage = Message;
/** The bot's answerCallbackQuery, as the stream's callback_answer event carries it. */
export type CallbackAnswer = Pick<CallbackAnsweredEvent, "callback_query_id" | "text" | "show_alert" | "url">;
/** The looks the widget takes from its config (the rest names the bot and channel). */
export type WidgetConfig = Pick<WidgetConfigResult, "title" | "subtitle" | "greeting" | "color" | "position" | "away" | "away_message" | "opens_at">;
export type Accepted = AcceptedMessage;

/** status 0 means the network failed before an answer came back. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly retryAfter?: number,
  ) {
    super(message);
  }
}

/** How often the fallback asks for new messages when the stream cannot be held open. */
const POLL_MS = 5_000;
/** Failed stream connections in a row before falling back to polling. */
const MAX_STREAM_FAILURES = 3;
/** While polling, the stream is tried again this often (a proxy may have been the cause). */
const STREAM_RETRY_MS = 60_000;
/** Messages fetched for history and by each poll. */
export const HISTORY_LIMIT = 50;

/** What the header shows: the stream or poll is being set up, works, or cannot reach the server. */
export type Connection = "connecting" | "online" | "offline";

export interface Live {
  /** The connection to the server changed (the offline queue sends when it is "online"). */
  state(s: Connection): void;
  message(m: WidgetMessage): void;
  updated(m: WidgetMessage): void;
  deleted(id: string): void;
  /** The bot (Telegram's sendChatAction) or an operator in the inbox is typing. */
  typing(): void;
  /** The bot answered a button press. */
  answer(a: CallbackAnswer): void;
  /** Highest message_id shown so far: where a fresh connection resumes. */
  cursor(): number;
  /** The conversation's status, when the stream starts and when it moves (closed: ask for a rating). */
  status(s: string): void;
}

export class Api {
  /** A verified user: every call that names the chat carries their id and hash. */
  who?: SiteUser;

  constructor(
    readonly base: string,
    readonly key: string,
  ) {}

  claim(): Record<string, string> {
    return this.who ? { user_id: this.who.id, user_hash: this.who.hash } : {};
  }

  private async call<T>(path: string, init?: RequestInit): Promise<T> {
    let res: Response;
    try {
      res = await fetch(this.base + path, { ...init, credentials: "omit", mode: "cors" });
    } catch {
      throw new ApiError(0, "You appear to be offline.");
    }
    const body = await res.json().catch(() => null);
    if (!res.ok || !body?.ok) {
      const retry = body?.retry_after ?? Number(res.headers.get("retry-after"));
      throw new ApiError(res.status, body?.error || `Error ${res.status}`, retry || undefined);
    }
    return body.result as T;
  }

  private query(extra: Record<string, string | number>): string {
    return new URLSearchParams({ widget_key: this.key, ...extra, ...this.claim() } as Record<string, string>).toString();
  }

  /** The verified user's chat; 401 when the hash is wrong. */
  identify(): Promise<{ chat_id: string }> {
    return this.call(`/api/widget/identity?${this.query({})}`);
  }

  config(): Promise<WidgetConfig> {
    return this.call(`/api/widget/config?${this.query({})}`);
  }

  /** The newest page, or the page older than message_id `before`. */
  history(chatId: string, before?: number): Promise<WidgetMessage[]> {
    return this.call(`/api/messages?${this.query({ chat_id: chatId, limit: HISTORY_LIMIT, ...(before ? { before } : {}) })}`);
  }

  send(chatId: string, text: string, clientId: string, attachments?: string[]): Promise<Accepted> {
    return this.call("/api/messages", {
      method: "POST",
      headers: { "content-type": "application/json", "idempotency-key": clientId },
      body: JSON.stringify({
        widget_key: this.key,
        chat_id: chatId,
        channel: "widget",
        text,
        attachments,
        ...this.claim(),
        ...(this.who ? { user: { id: this.who.id, name: this.who.name, email: this.who.email } } : {}),
        metadata: { page_url: location.href, page_title: document.title, client_message_id: clientId },
      }),
    });
  }

  /** The visitor's 1–5 rating of the closed conversation. */
  rate(chatId: string, rating: number, comment: string): Promise<unknown> {
    return this.call("/api/messages/rating", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ widget_key: this.key, chat_id: chatId, rating, comment: comment || undefined, ...this.claim() }),
    });
  }

  /** An inline button press: the bot gets a callback_query whose id comes back here. */
  press(chatId: string, messageId: string, data: string): Promise<{ callback_query_id: string }> {
    return this.call("/api/messages/callback-query", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ widget_key: this.key, chat_id: chatId, message_id: messageId, data, ...this.claim() }),
    });
  }

  /**
   * Follows the chat live. EventSource resumes by itself with Last-Event-ID after a break;
   * when the stream keeps failing (or EventSource is missing) the chat is polled instead.
   * Returns a function that stops everything.
   */
  follow(chatId: string, live: Live): () => void {
    let source: EventSource | undefined;
    let pollTimer: ReturnType<typeof setTimeout> | undefined;
    let retryTimer: ReturnType<typeof setTimeout> | undefined;
    let failures = 0;
    let stopped = false;
    let polling = false;

    const poll = async () => {
      try {
        for (const m of await this.history(chatId)) live.message(m);
        live.state("online");
      } catch {
        live.state("offline");
      }
      if (polling && !stopped) pollTimer = setTimeout(poll, POLL_MS);
    };
    const fallBack = () => {
      source?.close();
      source = undefined;
      if (stopped || polling) return;
      polling = true;
      void poll();
      retryTimer = setTimeout(() => {
        polling = false;
        clearTimeout(pollTimer);
        failures = 0;
        open();
      }, STREAM_RETRY_MS);
    };
    const open = () => {
      if (stopped) return;
      if (typeof EventSource !== "function") return fallBack();
      live.state("connecting");
      const es = (source = new EventSource(`${this.base}/api/messages/stream?${this.query({ chat_id: chatId, since: live.cursor() })}`));
      const on = (name: string, fn: (data: any) => void) =>
        es.addEventListener(name, (e) => {
          try {
            fn(JSON.parse((e as MessageEvent).data));
          } catch {}
        });
      on("message", live.message);
      on("message_updated", live.updated);
      on("message_deleted", (d) => live.deleted(d.id));
      on("typing", live.typing);
      on("operator_typing", live.typing);
      on("callback_answer", live.answer);
      on("ready", (d) => d.status && live.status(d.status));
      on("status", (d) => live.status(d.status));
      es.onopen = () => {
        failures = 0;
        live.state("online");
      };
      es.onerror = () => {
        // CLOSED: the server refused the stream (not an event stream); CONNECTING: a break.
        if (es.readyState === 2 || ++failures >= MAX_STREAM_FAILURES) fallBack();
        else live.state("connecting");
      };
    };
    open();
    return () => {
      stopped = true;
      source?.close();
      clearTimeout(pollTimer);
      clearTimeout(retryTimer);
    };
  }
}
