// A conversation's message log: opens at the newest message and pages older ones in
// (GET /api/inbox/:id?before=<message_id>) when the operator scrolls to the top or presses
// "Load older messages". The scroll position stays on what the operator was reading.
import { get, type ConversationDetail, type Message } from "./api.ts";
import { formatTime, h } from "./dom.ts";
import { messageText } from "./rich.ts";

const SENDER_LABEL: Record<Message["sender"], string> = { user: "Visitor", bot: "Bot", operator: "Operator" };
/** Closer than this to the top, the next older page is fetched; closer to the bottom, new messages follow. */
const EDGE_PX = 120;

/**
 * One message as a bubble: the only place a message is turned into DOM, so formatted text
 * and keyboards (issue 14) hook in here.
 */
export function messageBubble(m: Message): HTMLElement {
  const text = messageText(m);
  const meta = h("div", { class: "meta" }, `${SENDER_LABEL[m.sender]} · ${formatTime(m.created_at)}`, m.edited_at ? " · edited" : "");
  return h("div", { class: `bubble ${m.direction} ${m.sender}`, "data-id": m.id, "data-message-id": m.message_id }, text, meta);
}

export interface Thread {
  readonly root: HTMLElement;
  /** The newest page, replacing whatever was shown; the view lands on the newest message. */
  reset(detail: ConversationDetail): void;
  add(m: Message): void;
  update(m: Message): void;
  remove(id: string): void;
  scrollDown(): void;
  close(): void;
}

export function messageThread(conversationId: string, onError: (err: Error) => void): Thread {
  const bubbles = new Map<string, HTMLElement>();
  let oldest: number | undefined;
  let complete = false;
  let loading = false;
  let alive = true;

  const older = h("button", { type: "button", class: "ghost small load-older", onclick: () => void loadOlder() }, "Load older messages");
  const start = h("p", { class: "muted small thread-start" }, "Start of the conversation");
  const top = h("div", { class: "thread-top" }, older, start);
  const list = h("div", { class: "message-list" });
  const root = h("div", { class: "messages", role: "log", "aria-live": "polite", "aria-label": "Messages", tabindex: "0" }, top, list);

  const atBottom = () => root.scrollHeight - root.scrollTop - root.clientHeight < EDGE_PX;
  const scrollDown = () => (root.scrollTop = root.scrollHeight);
  const showTop = () => {
    older.hidden = complete;
    start.hidden = !complete || bubbles.size === 0;
    older.disabled = loading;
    older.textContent = loading ? "Loading older messages…" : "Load older messages";
  };

  const track = (page: Message[]) => {
    for (const m of page) oldest = Math.min(oldest ?? Infinity, Number(m.message_id));
  };
  const bubbleFor = (m: Message) => {
    const el = messageBubble(m);
    bubbles.set(m.id, el);
    return el;
  };

  async function loadOlder(): Promise<void> {
    if (loading || complete || oldest === undefined) return;
    loading = true;
    showTop();
    try {
      const detail = await get<ConversationDetail>(`/api/inbox/${conversationId}?before=${oldest}`);
      if (!alive) return;
      const fresh = detail.messages.filter((m) => !bubbles.has(m.id));
      // An empty page is the end; so is one that brings nothing new.
      if (!fresh.length) complete = true;
      track(fresh);
      // Keeps the message the operator was looking at in place while the page grows above it.
      const fromBottom = root.scrollHeight - root.scrollTop;
      list.prepend(...fresh.map(bubbleFor));
      root.scrollTop = root.scrollHeight - fromBottom;
    } catch (err) {
      if (alive) onError(err as Error);
    } finally {
      loading = false;
      showTop();
    }
    // A short page may leave the top still in view: keep going while it is.
    if (alive && !complete && root.scrollTop < EDGE_PX) void loadOlder();
  }

  root.addEventListener("scroll", () => {
    if (root.scrollTop < EDGE_PX) void loadOlder();
  }, { passive: true });

  return {
    root,
    reset(detail) {
      bubbles.clear();
      oldest = undefined;
      // Everything is in when the first page holds every message the conversation has.
      complete = detail.messages.length === 0 || detail.messages.length >= detail.message_count;
      track(detail.messages);
      list.replaceChildren(...detail.messages.map(bubbleFor));
      if (!detail.messages.length) list.append(h("p", { class: "muted empty" }, "No messages yet."));
      showTop();
      scrollDown();
    },
    add(m) {
      if (bubbles.has(m.id)) return;
      const follow = atBottom();
      list.querySelector(".empty")?.remove();
      list.append(bubbleFor(m));
      if (oldest === undefined) oldest = Number(m.message_id);
      showTop();
      if (follow) scrollDown();
    },
    update(m) {
      const el = bubbles.get(m.id);
      if (!el) return;
      const fresh = messageBubble(m);
      el.replaceWith(fresh);
      bubbles.set(m.id, fresh);
    },
    remove(id) {
      bubbles.get(id)?.classList.add("deleted");
    },
    scrollDown,
    close: () => (alive = false),
  };
}
