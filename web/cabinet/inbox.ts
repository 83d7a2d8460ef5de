// The operator inbox: the conversation list (bot and status filters, search) kept live by
// the inbox stream, beside the open conversation.
import { contactName, get, STATUSES, type Bot, type Conversation } from "./api.ts";
import { conversationPane, type ConversationPane } from "./conversation.ts";
import { formatTime, h, replace } from "./dom.ts";
import { handlerLabel } from "./rich.ts";
import type { Context } from "./main.ts";

/** One page of the list; the API's default. */
const PAGE = 100;
/** Typing pauses this long before the search runs. */
const SEARCH_DEBOUNCE_MS = 250;
const CONVERSATION_EVENTS = new Set(["conversation_created", "message_created", "conversation_updated", "message_updated", "message_deleted"]);

export interface InboxView {
  open(conversationId: string | undefined): void;
  close(): void;
}

export function inboxView(main: HTMLElement, initialId: string | undefined, ctx: Context): InboxView {
  document.title = "Inbox · botinbox";
  const bots = new Map<string, Bot>();
  const items = new Map<string, Conversation>();
  const unread = new Set<string>();
  let openId: string | undefined;
  let pane: ConversationPane | undefined;
  let alive = true;
  let loadSeq = 0;

  const search = h("input", { type: "search", id: "inbox-search", placeholder: "Search name, e-mail, text, note…", "aria-label": "Search conversations" });
  const botFilter = h("select", { "aria-label": "Bot" }, h("option", { value: "" }, "All bots"));
  const statusFilter = h("select", { "aria-label": "Status filter" },
    h("option", { value: "" }, "All statuses"),
    STATUSES.map((s) => h("option", { value: s }, s[0]!.toUpperCase() + s.slice(1))));
  const list = h("ul", { class: "conv-list", "aria-label": "Conversations", "aria-busy": "true" });
  const right = h("div", { class: "conv-pane" });
  const layout = h("section", { class: "inbox" },
    h("aside", { class: "list-pane" },
      h("div", { class: "list-head" }, h("h1", { tabindex: "-1" }, "Inbox")),
      h("div", { class: "filters" }, search, h("div", { class: "row" }, botFilter, statusFilter)),
      list,
    ),
    right,
  );
  replace(main, layout);

  const matches = (c: Conversation) => (!botFilter.value || c.bot_id === botFilter.value) && (!statusFilter.value || c.status === statusFilter.value);

  const row = (c: Conversation) => {
    const bot = bots.get(c.bot_id)?.name ?? "Bot";
    const last = c.last_message;
    const preview = last ? `${last.direction === "out" ? (last.sender === "operator" ? "You: " : "Bot: ") : ""}${last.text}` : "No messages";
    return h("li", null, h("a", {
      href: `#/inbox/${c.id}`,
      class: `conv${c.id === openId ? " active" : ""}${unread.has(c.id) ? " unread" : ""}`,
      "aria-current": c.id === openId ? "true" : null,
      "data-id": c.id,
    },
      h("div", { class: "conv-line" },
        h("strong", { class: "conv-name" }, contactName(c.contact, `Chat ${c.chat_id.slice(0, 12)}`)),
        h("time", { datetime: c.last_message_at }, formatTime(c.last_message_at)),
      ),
      h("div", { class: "conv-line" },
        h("span", { class: "preview" }, preview),
        h("span", { class: `pill status-${c.status}` }, c.status),
      ),
      h("div", { class: "conv-line muted small" }, `${bot} · ${c.channel}${handlerLabel(c)}`, unread.has(c.id) ? h("span", { class: "sr" }, " (new activity)") : null),
    ));
  };

  let renderQueued = false;
  const renderList = () => {
    if (renderQueued) return;
    renderQueued = true;
    requestAnimationFrame(() => {
      renderQueued = false;
      const sorted = [...items.values()].sort((a, b) => b.last_message_at.localeCompare(a.last_message_at) || b.id.localeCompare(a.id));
      list.removeAttribute("aria-busy");
      if (!sorted.length) {
        const filtered = search.value || botFilter.value || statusFilter.value;
        replace(list, h("li", { class: "empty" }, filtered ? "No conversations match." : bots.size ? "No conversations yet. They appear here as soon as a visitor writes." : h("span", null, "No bots yet. ", h("a", { href: "#/bots" }, "Create a bot"), " to start.")));
        return;
      }
      replace(list, sorted.map(row));
    });
  };

  const load = async () => {
    const seq = ++loadSeq;
    const params = new URLSearchParams({ limit: String(PAGE) });
    if (botFilter.value) params.set("bot_id", botFilter.value);
    if (statusFilter.value) params.set("status", statusFilter.value);
    if (search.value.trim()) params.set("q", search.value.trim());
    try {
      const page = await get<Conversation[]>(`/api/inbox?${params}`);
      if (!alive || seq !== loadSeq) return;
      items.clear();
      for (const c of page) items.set(c.id, c);
      renderList();
    } catch (err) {
      if (alive) replace(list, h("li", { class: "form-error", role: "alert" }, (err as Error).message));
    }
  };

  let searchTimer: ReturnType<typeof setTimeout> | undefined;
  const reloadSoon = () => {
    clearTimeout(searchTimer);
    searchTimer = setTimeout(() => void load(), SEARCH_DEBOUNCE_MS);
  };
  search.addEventListener("input", reloadSoon);
  botFilter.addEventListener("change", () => void load());
  statusFilter.addEventListener("change", () => void load());

  const upsert = (c: Conversation) => {
    const known = items.get(c.id);
    // Events about edits carry an older snapshot than the list may already have.
    if (known && known.updated_at > c.updated_at) return;
    if (matches(c)) items.set(c.id, c);
    else items.delete(c.id);
    renderList();
  };

  const stopLive = ctx.live.on((kind, data) => {
    if (kind === "ready" && !data.resumed) void load();
    if (kind === "reset") void load();
    if (CONVERSATION_EVENTS.has(kind) && data?.conversation) {
      // Search runs on the server; with a query the list is simply asked again.
      if (search.value.trim()) reloadSoon();
      else upsert(data.conversation);
      if (kind === "message_created" && data.message?.direction === "in" && data.conversation.id !== openId) unread.add(data.conversation.id);
    }
    pane?.onEvent(kind, data);
  });

  get<Bot[]>("/api/bots").then((list) => {
    for (const b of list) {
      bots.set(b.id, b);
      botFilter.append(h("option", { value: b.id }, b.name));
    }
    renderList();
  }, () => {});
  void load();

  const open = (id: string | undefined) => {
    if (id === openId && pane) return;
    pane?.close();
    pane = undefined;
    openId = id;
    layout.classList.toggle("has-open", Boolean(id));
    if (id) {
      unread.delete(id);
      pane = conversationPane(right, id, bots, upsert);
    } else {
      replace(right, h("div", { class: "empty-pane" }, h("p", { class: "muted" }, "Select a conversation to read and reply.")));
    }
    renderList();
  };
  open(initialId);

  return {
    open,
    close() {
      alive = false;
      stopLive();
      pane?.close();
      clearTimeout(searchTimer);
    },
  };
}
