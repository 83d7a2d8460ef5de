// The operator inbox: status tabs with counts, bot and assignee filters, search, and the
// conversation list (paged as it scrolls, kept live by the inbox stream), beside the open
// conversation. Unread counts come from the server, so they survive reloads and devices.
import { useEffect, useLayoutEffect, useMemo, useRef } from "preact/hooks";
import { contactName, type Bot, type InboxConversation } from "./api.ts";
import { ConversationPane } from "./conversation.tsx";
import { InboxStore, TABS, type Tab } from "./inbox-store.ts";
import type { LiveFeed } from "./live.ts";
import { handlerLabel } from "./rich.tsx";
import { formatTime } from "./ui.tsx";
import { PresenceDot, TeamPresence } from "./presence.tsx";

/** The next page is asked for when the "more" row comes this close to the list's bottom edge. */
const PAGE_AHEAD_PX = 200;
const TAB_LABEL = (t: Tab) => (t === "all" ? "All" : t[0]!.toUpperCase() + t.slice(1));

/** Stays mounted while the route stays in the inbox: opening another conversation keeps the list. */
export function InboxView({ openId, live }: { openId: string | undefined; live: LiveFeed }) {
  const store = useMemo(() => new InboxStore(), []);
  useLayoutEffect(() => {
    store.openId.value = openId;
  }, [openId]);
  useEffect(() => {
    const stopLive = live.on(store.onLive);
    store.start();
    return () => {
      stopLive();
      store.stop();
    };
  }, []);
  const unread = store.totalUnread.value;
  useEffect(() => {
    document.title = `${unread ? `(${unread}) ` : ""}Inbox · botinbox`;
  }, [unread]);

  return (
    <section class={`inbox${openId ? " has-open" : ""}`}>
      <aside class="list-pane">
        <div class="list-head">
          <h1 tabIndex={-1}>Inbox</h1>
          <input type="search" id="inbox-search" placeholder="Search name, e-mail, text, note…" aria-label="Search conversations"
            value={store.query.value} onInput={(e) => store.setQuery(e.currentTarget.value)} />
        </div>
        <Tabs store={store} />
        <div class="filters">
          <select aria-label="Bot" value={store.bot.value} onChange={(e) => store.setFilter("bot", e.currentTarget.value)}>
            <option value="">All bots</option>
            {[...store.bots.value.values()].map((b) => <option key={b.id} value={b.id}>{b.name}</option>)}
          </select>
          <select aria-label="Assigned to" value={store.assignee.value} onChange={(e) => store.setFilter("assignee", e.currentTarget.value)}>
            <option value="all">Everyone's</option>
            <option value="me">Mine</option>
            <option value="unassigned">Unassigned</option>
          </select>
        </div>
        <TeamPresence botIds={[...store.bots.value.keys()]} />
        <ConversationList store={store} />
      </aside>
      {openId
        ? <ConversationPane key={openId} id={openId} store={store} live={live} />
        : <div class="conv-pane"><div class="empty-pane"><p class="muted">Select a conversation to read and reply.</p></div></div>}
    </section>
  );
}

function Tabs({ store }: { store: InboxStore }) {
  const counts = store.counts.value;
  return (
    <div class="tabs" role="group" aria-label="Filter by status">
      {TABS.map((t) => {
        const total = counts?.status[t];
        const unread = counts?.unread[t] ?? 0;
        return (
          <button key={t} type="button" class="tab" aria-pressed={t === store.tab.value} data-tab={t} onClick={() => store.setTab(t)}
            aria-label={`${TAB_LABEL(t)}${total === undefined ? "" : `, ${total}`}${unread ? `, ${unread} unread` : ""}`}>
            {/* The spaces are not drawn (flex items) but part the words, so the visible text reads as the name does. */}
            <span class="tab-name">{TAB_LABEL(t)}</span>{" "}
            <span class="tab-count">{total === undefined ? "" : String(total)}</span>{" "}
            <span class="tab-unread" title={unread ? `${unread} with unread messages` : ""}>{unread ? String(unread) : ""}</span>
          </button>
        );
      })}
    </div>
  );
}

function ConversationList({ store }: { store: InboxStore }) {
  const scroller = useRef<HTMLDivElement>(null);
  const moreRow = useRef<HTMLLIElement>(null);
  const sorted = store.sorted.value;
  const cursor = store.cursor.value;
  const paging = store.paging.value;
  const openId = store.openId.value;
  const bots = store.bots.value;

  /** The list pages itself in when its end comes into view, by scrolling or because a render left it there. */
  const pageIfNear = () => {
    const row = moreRow.current;
    if (!row || store.paging.value || store.cursor.value === null) return;
    if (row.getBoundingClientRect().top < scroller.current!.getBoundingClientRect().bottom + PAGE_AHEAD_PX) void store.loadMore();
  };
  useEffect(pageIfNear);

  let content;
  if (store.listError.value) content = <li class="form-error" role="alert">{store.listError.value}</li>;
  else if (store.loaded.value && !sorted.length && cursor === null) {
    content = (
      <li class="empty">
        {store.filtered.value ? "No conversations match."
          : bots.size ? "No conversations yet. They appear here as soon as a visitor writes."
          : <span>No bots yet. <a href="#/bots">Create a bot</a> to start.</span>}
      </li>
    );
  } else {
    content = (
      <>
        {sorted.map((c) => <Row key={c.id} c={c} bot={bots.get(c.bot_id)} open={c.id === openId} />)}
        {cursor !== null && (
          <li class="list-more" ref={moreRow}>
            {store.pageError.value && <span class="form-error">{store.pageError.value}</span>}
            <button type="button" class="ghost small" disabled={paging} onClick={() => void store.loadMore()}>
              {paging ? "Loading…" : "Load more conversations"}
            </button>
          </li>
        )}
      </>
    );
  }
  return (
    <div class="list-scroll" ref={scroller} onScroll={pageIfNear}>
      <ul class="conv-list" aria-label="Conversations" aria-busy={store.loaded.value || store.listError.value ? undefined : "true"}>{content}</ul>
    </div>
  );
}

function Row({ c, bot, open }: { c: InboxConversation; bot: Bot | undefined; open: boolean }) {
  const last = c.last_message;
  const preview = last ? `${last.direction === "out" ? (last.sender === "operator" ? "Operator: " : "Bot: ") : ""}${last.text}` : "No messages";
  const unread = open ? 0 : c.unread_count;
  return (
    <li>
      <a href={`#/inbox/${c.id}`} class={`conv${open ? " active" : ""}${unread ? " unread" : ""}`} aria-current={open ? "true" : undefined} data-id={c.id}>
        <div class="conv-line">
          <strong class="conv-name">{contactName(c.contact, `Chat ${c.chat_id.slice(0, 12)}`)}</strong>
          <time datetime={c.last_message_at}>{formatTime(c.last_message_at)}</time>
        </div>
        <div class="conv-line">
          <span class="preview">{preview}</span>
          {unread > 0 && <span class="unread-count" aria-label={`${unread} unread`}>{String(unread)}</span>}
          <span class={`pill status-${c.status}`}>{c.status}</span>
        </div>
        <div class="conv-line muted small">
          <span class="clip">{`${bot?.name ?? "Bot"} · ${c.channel}${handlerLabel(c)}`}</span>
          {c.assignee && <span class="assignee" title="Assigned to"><PresenceDot userId={c.assignee.user_id} email={c.assignee.email} />{`→ ${c.assignee.email}`}</span>}
        </div>
      </a>
    </li>
  );
}
