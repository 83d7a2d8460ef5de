// The operator inbox: status tabs with counts, bot and assignee filters, search, and the
// conversation list (paged as it scrolls, kept live by the inbox stream), beside the open
// conversation. Unread counts come from the server, so they survive reloads and devices.
import {
  contactName, currentUser, get, STATUSES,
  type Bot, type InboxConversation, type InboxCounts, type Status, type TabCounts,
} from "./api.ts";
import { conversationPane, type ConversationPane } from "./conversation.ts";
import { formatTime, h, replace } from "./dom.ts";
import { handlerLabel } from "./rich.ts";
import type { Context } from "./main.ts";

/** One page of the list; the API's default. */
const PAGE = 100;
/** Typing pauses this long before the search runs. */
const SEARCH_DEBOUNCE_MS = 250;
/** Bursts of live events refresh the tab counts once. */
const COUNTS_DEBOUNCE_MS = 500;
const CONVERSATION_EVENTS = new Set(["conversation_created", "message_created", "conversation_updated", "message_updated", "message_deleted"]);
type Tab = Status | "all";
const TABS: Tab[] = ["all", ...STATUSES];
const TAB_LABEL = (t: Tab) => (t === "all" ? "All" : t[0]!.toUpperCase() + t.slice(1));

export interface InboxView {
  open(conversationId: string | undefined): void;
  close(): void;
}

export function inboxView(main: HTMLElement, initialId: string | undefined, ctx: Context): InboxView {
  const bots = new Map<string, Bot>();
  const items = new Map<string, InboxConversation>();
  let openId: string | undefined;
  let pane: ConversationPane | undefined;
  let alive = true;
  let loadSeq = 0;
  let tab: Tab = "all";
  /** Where the next page starts (the last conversation's id), or null when every page is in. */
  let cursor: string | null = null;
  let paging = false;
  let counts: InboxCounts | undefined;

  const search = h("input", { type: "search", id: "inbox-search", placeholder: "Search name, e-mail, text, note…", "aria-label": "Search conversations" });
  const botFilter = h("select", { "aria-label": "Bot" }, h("option", { value: "" }, "All bots"));
  const assigneeFilter = h("select", { "aria-label": "Assigned to" },
    h("option", { value: "all" }, "Everyone's"), h("option", { value: "me" }, "Mine"), h("option", { value: "unassigned" }, "Unassigned"));
  const tabButtons = new Map(TABS.map((t) => [t, h("button", {
    type: "button", class: "tab", "aria-pressed": String(t === tab), "data-tab": t,
    onclick: () => {
      tab = t;
      for (const [name, b] of tabButtons) b.setAttribute("aria-pressed", String(name === t));
      void load();
    },
  }, h("span", { class: "tab-name" }, TAB_LABEL(t)), h("span", { class: "tab-count" }), h("span", { class: "tab-unread" }))]));
  const list = h("ul", { class: "conv-list", "aria-label": "Conversations", "aria-busy": "true" });
  const more = h("button", { type: "button", class: "ghost small", onclick: () => void loadMore() }, "Load more conversations");
  const moreRow = h("li", { class: "list-more" }, more);
  const listScroll = h("div", { class: "list-scroll" }, list);
  const right = h("div", { class: "conv-pane" });
  const layout = h("section", { class: "inbox" },
    h("aside", { class: "list-pane" },
      h("div", { class: "list-head" }, h("h1", { tabindex: "-1" }, "Inbox"), search),
      h("div", { class: "tabs", role: "group", "aria-label": "Filter by status" }, [...tabButtons.values()]),
      h("div", { class: "filters" }, botFilter, assigneeFilter),
      listScroll,
    ),
    right,
  );
  replace(main, layout);

  const totalUnread = () => counts?.unread.all ?? [...items.values()].filter((c) => (c.unread_count ?? 0) > 0).length;
  const showTitle = () => {
    const n = totalUnread();
    document.title = `${n ? `(${n}) ` : ""}Inbox · botinbox`;
  };
  const showCounts = () => {
    for (const [t, b] of tabButtons) {
      const total = counts?.status[t];
      const unread = counts?.unread[t] ?? 0;
      b.querySelector(".tab-count")!.textContent = total === undefined ? "" : String(total);
      const badge = b.querySelector<HTMLElement>(".tab-unread")!;
      badge.textContent = unread ? String(unread) : "";
      badge.title = unread ? `${unread} with unread messages` : "";
      b.setAttribute("aria-label", `${TAB_LABEL(t)}${total === undefined ? "" : `, ${total}`}${unread ? `, ${unread} unread` : ""}`);
    }
    showTitle();
  };

  const filterParams = () => {
    const params = new URLSearchParams();
    if (botFilter.value) params.set("bot_id", botFilter.value);
    if (assigneeFilter.value !== "all") params.set("assignee", assigneeFilter.value);
    return params;
  };
  let countsTimer: ReturnType<typeof setTimeout> | undefined;
  let countsSeq = 0;
  const fetchCounts = async () => {
    const seq = ++countsSeq;
    try {
      const fresh = await get<InboxCounts>(`/api/inbox/counts?${filterParams()}`);
      if (!alive || seq !== countsSeq) return;
      counts = fresh;
    } catch {
      counts = undefined;
    }
    showCounts();
  };
  /** After live events: bursts of them ask once. */
  const loadCounts = () => {
    clearTimeout(countsTimer);
    countsTimer = setTimeout(fetchCounts, COUNTS_DEBOUNCE_MS);
  };

  const matches = (c: InboxConversation) =>
    (!botFilter.value || c.bot_id === botFilter.value) && (tab === "all" || c.status === tab);

  const row = (c: InboxConversation) => {
    const bot = bots.get(c.bot_id)?.name ?? "Bot";
    const last = c.last_message;
    const preview = last ? `${last.direction === "out" ? (last.sender === "operator" ? "Operator: " : "Bot: ") : ""}${last.text}` : "No messages";
    const unread = c.id === openId ? 0 : c.unread_count ?? 0;
    return h("li", null, h("a", {
      href: `#/inbox/${c.id}`,
      class: `conv${c.id === openId ? " active" : ""}${unread ? " unread" : ""}`,
      "aria-current": c.id === openId ? "true" : null,
      "data-id": c.id,
    },
      h("div", { class: "conv-line" },
        h("strong", { class: "conv-name" }, contactName(c.contact, `Chat ${c.chat_id.slice(0, 12)}`)),
        h("time", { datetime: c.last_message_at }, formatTime(c.last_message_at)),
      ),
      h("div", { class: "conv-line" },
        h("span", { class: "preview" }, preview),
        unread ? h("span", { class: "unread-count", "aria-label": `${unread} unread` }, String(unread)) : null,
        h("span", { class: `pill status-${c.status}` }, c.status),
      ),
      h("div", { class: "conv-line muted small" },
        h("span", { class: "clip" }, `${bot} · ${c.channel}${handlerLabel(c)}`),
        c.assignee ? h("span", { class: "assignee", title: "Assigned to" }, `→ ${c.assignee.email}`) : null,
      ),
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
      showTitle();
      if (!sorted.length && cursor === null) {
        const filtered = search.value || botFilter.value || tab !== "all" || assigneeFilter.value !== "all";
        replace(list, h("li", { class: "empty" }, filtered ? "No conversations match." : bots.size ? "No conversations yet. They appear here as soon as a visitor writes." : h("span", null, "No bots yet. ", h("a", { href: "#/bots" }, "Create a bot"), " to start.")));
        return;
      }
      more.disabled = paging;
      more.textContent = paging ? "Loading…" : "Load more conversations";
      replace(list, sorted.map(row), cursor === null ? null : moreRow);
      // A re-render does not always wake the observer: a "more" row left in view pages on.
      if (cursor !== null && !paging && moreRow.getBoundingClientRect().top < listScroll.getBoundingClientRect().bottom + 200) void loadMore();
    });
  };

  const pageParams = () => {
    const params = filterParams();
    params.set("limit", String(PAGE));
    if (tab !== "all") params.set("status", tab);
    if (search.value.trim()) params.set("q", search.value.trim());
    return params;
  };

  const load = async () => {
    const seq = ++loadSeq;
    paging = false;
    clearTimeout(countsTimer);
    void fetchCounts();
    try {
      const page = await get<InboxConversation[]>(`/api/inbox?${pageParams()}`);
      if (!alive || seq !== loadSeq) return;
      items.clear();
      for (const c of page) items.set(c.id, c);
      cursor = page.length ? page[page.length - 1]!.id : null;
      renderList();
    } catch (err) {
      if (alive) replace(list, h("li", { class: "form-error", role: "alert" }, (err as Error).message));
    }
  };

  /** The next page, after the oldest conversation shown; an empty page ends the list. */
  async function loadMore(): Promise<void> {
    if (paging || cursor === null) return;
    const seq = loadSeq;
    paging = true;
    renderList();
    try {
      const params = pageParams();
      params.set("before", cursor);
      const page = await get<InboxConversation[]>(`/api/inbox?${params}`);
      if (!alive || seq !== loadSeq) return;
      for (const c of page) if (!items.has(c.id)) items.set(c.id, c);
      cursor = page.length ? page[page.length - 1]!.id : null;
    } catch (err) {
      replace(moreRow, h("span", { class: "form-error" }, (err as Error).message), more);
    } finally {
      if (seq === loadSeq) paging = false;
      renderList();
    }
  }

  // The list pages itself in when its end scrolls into view.
  const observer = new IntersectionObserver((entries) => {
    if (entries.some((e) => e.isIntersecting)) void loadMore();
  }, { root: listScroll, rootMargin: "200px" });
  observer.observe(moreRow);

  let searchTimer: ReturnType<typeof setTimeout> | undefined;
  const reloadSoon = () => {
    clearTimeout(searchTimer);
    searchTimer = setTimeout(() => void load(), SEARCH_DEBOUNCE_MS);
  };
  search.addEventListener("input", reloadSoon);
  botFilter.addEventListener("change", () => void load());
  assigneeFilter.addEventListener("change", () => void load());

  const upsert = (c: InboxConversation) => {
    const known = items.get(c.id);
    // Events about edits carry an older snapshot than the list may already have.
    if (known && known.updated_at > c.updated_at) return;
    // Live snapshots are not per user: this user's unread count and the assignee stay as known.
    const merged: InboxConversation = { ...known, ...c, unread_count: known?.unread_count ?? 0 };
    if (!("assignee" in c) && known) merged.assignee = known.assignee;
    if (matches(merged) && assigneeMatches(merged)) items.set(c.id, merged);
    else items.delete(c.id);
    renderList();
  };
  let myId: string | undefined;
  const assigneeMatches = (c: InboxConversation) =>
    assigneeFilter.value === "all" || c.assignee === undefined ||
    (assigneeFilter.value === "unassigned" ? c.assignee === null : c.assignee?.user_id === myId);
  currentUser().then((u) => (myId = u.id), () => {});

  const setUnread = (id: string, n: number) => {
    const c = items.get(id);
    if (c && (c.unread_count ?? 0) !== n) {
      items.set(id, { ...c, unread_count: n });
      renderList();
    }
  };

  const stopLive = ctx.live.on((kind, data) => {
    if (kind === "ready" && !data.resumed) void load();
    if (kind === "reset") void load();
    if (kind === "bots_changed") {
      // Joined, removed, renamed or deleted: the bots and (if one went away) the list change.
      void loadBots();
      void load();
    }
    if (kind === "conversation_read" && data?.conversation_id) {
      setUnread(data.conversation_id, data.unread_count ?? 0);
      loadCounts();
    }
    if (CONVERSATION_EVENTS.has(kind) && data?.conversation) {
      // Search runs on the server; with a query the list is simply asked again.
      if (search.value.trim()) reloadSoon();
      else upsert(data.conversation);
      const id = data.conversation.id;
      const incoming = kind === "message_created" && data.message?.direction === "in";
      if (incoming && (id !== openId || document.visibilityState !== "visible")) {
        setUnread(id, (items.get(id)?.unread_count ?? 0) + 1);
      }
      loadCounts();
    }
    pane?.onEvent(kind, data);
  });

  const loadBots = () => get<Bot[]>("/api/bots").then((list) => {
    if (!alive) return;
    const chosen = botFilter.value;
    bots.clear();
    replace(botFilter, h("option", { value: "" }, "All bots"));
    for (const b of list) {
      bots.set(b.id, b);
      botFilter.append(h("option", { value: b.id }, b.name));
    }
    botFilter.value = bots.has(chosen) ? chosen : "";
    // The open conversation's bot was deleted, or this user was removed from it.
    const openBot = openId ? items.get(openId)?.bot_id : undefined;
    if (openBot && !bots.has(openBot)) location.hash = "#/inbox";
    renderList();
  }, () => {});
  void loadBots();
  void load();

  const open = (id: string | undefined) => {
    if (id === openId && pane) return;
    pane?.close();
    pane = undefined;
    openId = id;
    layout.classList.toggle("has-open", Boolean(id));
    right.classList.remove("side-open");
    if (id) {
      pane = conversationPane(right, id, {
        bots,
        changed: upsert,
        read: (readId) => {
          setUnread(readId, 0);
          loadCounts();
        },
      });
    } else {
      replace(right, h("div", { class: "empty-pane" }, h("p", { class: "muted" }, "Select a conversation to read and reply.")));
    }
    renderList();
  };
  open(initialId);
  showCounts();

  return {
    open,
    close() {
      alive = false;
      stopLive();
      observer.disconnect();
      pane?.close();
      clearTimeout(searchTimer);
      clearTimeout(countsTimer);
    },
  };
}
