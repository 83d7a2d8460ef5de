// The inbox's state, apart from how it is drawn: the list (keyed by conversation id, paged),
// the filters, the tab counts and the bots, kept current by the live stream. Views read the
// signals; only the methods here change them. A newer load replaces an older one (Latest),
// so an answer that arrives late never overwrites a fresher list.
import { batch, computed, signal } from "@preact/signals";
import type { InboxQuery } from "../../src/http/inbox/model.ts";
import {
  currentUser, get, STATUSES, type Bot, type Conversation, type InboxConversation, type InboxCounts, type Status,
} from "./api.ts";
import type { LiveEvent } from "./live.ts";
import { errorText, Latest } from "./ui.tsx";
import { keepLoading } from "./retry.ts";

/** One page of the list; the API's default. */
const PAGE = 100;
/** Typing pauses this long before the search runs. */
const SEARCH_DEBOUNCE_MS = 250;
/** Bursts of live events refresh the tab counts once. */
const COUNTS_DEBOUNCE_MS = 500;

export type Tab = Status | "all";
export const TABS: Tab[] = ["all", ...STATUSES];
type AssigneeFilter = NonNullable<InboxQuery["assignee"]>;
/** A live snapshot: the record, and `assignee` when the event is about the assignment (or a replay). */
type Snapshot = Conversation & Partial<Pick<InboxConversation, "assignee" | "unread_count">>;

/** A live change kept while a load is on its way, to be laid over the page it brings. */
interface HeldChange {
  snapshot: Snapshot;
  unreadMessage?: number;
}

/** A chat's message ids are increasing integers (as text). */
const messageOrder = (m: { message_id: string }) => Number(m.message_id);

/** Per conversation, the newest message its loaded unread count includes (a page's rows include their last message). */
const countedOf = (page: InboxConversation[]) =>
  new Map(page.map((c) => [c.id, c.last_message ? messageOrder(c.last_message) : 0]));

const newestFirst = (a: Conversation, b: Conversation) => b.last_message_at.localeCompare(a.last_message_at) || b.id.localeCompare(a.id);

export class InboxStore {
  readonly bots = signal<ReadonlyMap<string, Bot>>(new Map());
  readonly items = signal<ReadonlyMap<string, InboxConversation>>(new Map());
  /** Where the next page starts (the last conversation's id), or null when every page is in. */
  readonly cursor = signal<string | null>(null);
  readonly paging = signal(false);
  /** False until the first page is in (the list is busy). */
  readonly loaded = signal(false);
  readonly listError = signal("");
  readonly pageError = signal("");
  readonly counts = signal<InboxCounts | undefined>(undefined);
  readonly openId = signal<string | undefined>(undefined);

  readonly tab = signal<Tab>("all");
  readonly query = signal("");
  readonly bot = signal("");
  /** A label name the list is filtered by ("" = any). */
  readonly label = signal("");
  /** Conversations ticked for a bulk action. */
  readonly selected = signal<ReadonlySet<string>>(new Set());
  readonly assignee = signal<AssigneeFilter>("all");

  readonly sorted = computed(() => [...this.items.value.values()].sort(newestFirst));
  readonly filtered = computed(() => Boolean(this.query.value || this.bot.value || this.label.value || this.tab.value !== "all" || this.assignee.value !== "all"));
  readonly totalUnread = computed(() =>
    this.counts.value?.unread.all ?? [...this.items.value.values()].filter((c) => c.unread_count > 0).length);

  private readonly list = new Latest();
  private readonly more = new Latest();
  private readonly countsRequest = new Latest();
  private readonly botsRequest = new Latest();
  private searchTimer: ReturnType<typeof setTimeout> | undefined;
  private countsTimer: ReturnType<typeof setTimeout> | undefined;
  myId: string | undefined;
  /** Live changes seen while the list loads (none when no load is on its way). */
  private held: HeldChange[] | undefined;
  private counted = new Map<string, number>();

  constructor() {
    currentUser().then((u) => (this.myId = u.id), () => {});
  }

  private filterParams(): URLSearchParams {
    const params = new URLSearchParams();
    if (this.bot.value) params.set("bot_id", this.bot.value);
    if (this.assignee.value !== "all") params.set("assignee", this.assignee.value);
    return params;
  }

  private pageParams(): URLSearchParams {
    const params = this.filterParams();
    params.set("limit", String(PAGE));
    // The list only: the tab counts stay per status.
    if (this.label.value) params.set("label", this.label.value);
    if (this.tab.value !== "all") params.set("status", this.tab.value);
    const q = this.query.value.trim();
    if (q) params.set("q", q);
    return params;
  }

  /** The first page afresh, with the counts. */
  load = async (): Promise<void> => {
    this.more.stop();
    this.paging.value = false;
    clearTimeout(this.countsTimer);
    void this.fetchCounts();
    // Live changes that arrive while the page is on its way are kept and laid over it:
    // the page may have been read before they happened.
    const held: HeldChange[] = [];
    this.held = held;
    try {
      const page = await this.list.run(() => get<InboxConversation[]>(`/api/inbox?${this.pageParams()}`));
      if (!page) return;
      const items = new Map(page.map((c) => [c.id, c]));
      const counted = countedOf(page);
      for (const change of held) this.merge(items, counted, change.snapshot, change.unreadMessage);
      this.counted = counted;
      batch(() => {
        this.items.value = items;
        this.cursor.value = page.at(-1)?.id ?? null;
        this.loaded.value = true;
        this.listError.value = "";
        this.pageError.value = "";
      });
    } catch (err) {
      this.listError.value = errorText(err);
    } finally {
      if (this.held === held) this.held = undefined;
    }
  };

  /** The next page, after the oldest conversation shown; an empty page ends the list. */
  loadMore = async (): Promise<void> => {
    const cursor = this.cursor.value;
    if (this.paging.value || cursor === null) return;
    this.paging.value = true;
    this.pageError.value = "";
    try {
      const params = this.pageParams();
      params.set("before", cursor);
      const page = await this.more.run(() => get<InboxConversation[]>(`/api/inbox?${params}`));
      // Dropped: a fresh load replaced the list (and ended this paging) meanwhile.
      if (!page) return;
      const items = new Map(this.items.value);
      for (const [id, upTo] of countedOf(page.filter((c) => !items.has(c.id)))) this.counted.set(id, upTo);
      for (const c of page) if (!items.has(c.id)) items.set(c.id, c);
      batch(() => {
        this.items.value = items;
        this.cursor.value = page.at(-1)?.id ?? null;
        this.paging.value = false;
      });
    } catch (err) {
      batch(() => {
        this.pageError.value = errorText(err);
        this.paging.value = false;
      });
    }
  };

  private fetchCounts = async (): Promise<void> => {
    try {
      const counts = await this.countsRequest.run(() => get<InboxCounts>(`/api/inbox/counts?${this.filterParams()}`));
      if (counts) this.counts.value = counts;
    } catch {
      this.counts.value = undefined;
    }
  };

  /** After live events: bursts of them ask once. */
  private countsSoon(): void {
    clearTimeout(this.countsTimer);
    this.countsTimer = setTimeout(this.fetchCounts, COUNTS_DEBOUNCE_MS);
  }

  /** Stops the bots' load still retrying, if any. */
  private stopLoadingBots: (() => void) | undefined;

  /** Asked again while the server fails for a moment: without its bots the inbox has no filter and no team strip. */
  loadBots = (): void => {
    this.stopLoadingBots?.();
    // botsRequest drops the answer of a load that a newer one or stop() replaced: no stale retry lands.
    this.stopLoadingBots = keepLoading(async () => {
      const list = await this.botsRequest.run(() => get<Bot[]>("/api/bots"));
      if (!list) return;
      const bots = new Map(list.map((b) => [b.id, b]));
      batch(() => {
        this.bots.value = bots;
        if (!bots.has(this.bot.value)) this.bot.value = "";
      });
      // The open conversation's bot was deleted, or this user was removed from it.
      const openBot = this.openId.value ? this.items.value.get(this.openId.value)?.bot_id : undefined;
      if (openBot && !bots.has(openBot)) location.hash = "#/inbox";
    });
  };

  setTab(tab: Tab): void {
    this.tab.value = tab;
    void this.load();
  }

  setFilter(which: "bot" | "assignee" | "label", value: string): void {
    if (which === "bot") this.bot.value = value;
    else if (which === "label") this.label.value = value;
    else this.assignee.value = value as AssigneeFilter;
    void this.load();
  }

  /** Search runs on the server once typing pauses. */
  setQuery(query: string): void {
    this.query.value = query;
    this.reloadSoon();
  }

  private reloadSoon(): void {
    clearTimeout(this.searchTimer);
    this.searchTimer = setTimeout(this.load, SEARCH_DEBOUNCE_MS);
  }

  /** `assigneeKnown` false: a snapshot new to the list without one; it stays until the next load. */
  private matches(c: InboxConversation, assigneeKnown: boolean): boolean {
    const assignee = this.assignee.value;
    return (!this.bot.value || c.bot_id === this.bot.value) && (this.tab.value === "all" || c.status === this.tab.value) &&
      (!this.label.value || !c.labels || c.labels.includes(this.label.value)) &&
      (assignee === "all" || !assigneeKnown || (assignee === "unassigned" ? c.assignee === null : c.assignee?.user_id === this.myId));
  }

  /**
   * A newer snapshot of a conversation (a live event, or a change made in this tab);
   * `unreadMessage`: the id of an unread message it brings.
   */
  upsert = (c: Snapshot, unreadMessage?: number): void => {
    this.held?.push({ snapshot: c, unreadMessage });
    const items = new Map(this.items.value);
    if (this.merge(items, this.counted, c, unreadMessage)) this.items.value = items;
  };

  /** Lays a snapshot over `items`; false when it is older than what they hold (nothing changed). */
  private merge(items: Map<string, InboxConversation>, counted: Map<string, number>, c: Snapshot, unreadMessage?: number): boolean {
    const known = items.get(c.id);
    // Events about edits carry an older snapshot than the list may already have.
    if (known && known.updated_at > c.updated_at) return false;
    // A message up to which the row's unread count is already known is not counted again
    // (the row came from a page read after it, or the event came twice).
    const newUnread = unreadMessage !== undefined && unreadMessage > (counted.get(c.id) ?? 0);
    if (newUnread) counted.set(c.id, unreadMessage);
    // Live snapshots are not per user: this user's unread count and the assignee stay as known.
    const unreadCount = (known?.unread_count ?? 0) + (newUnread ? 1 : 0);
    const merged: InboxConversation = { ...c, assignee: "assignee" in c ? c.assignee ?? null : known?.assignee ?? null, unread_count: unreadCount };
    if (this.matches(merged, "assignee" in c || known !== undefined)) items.set(c.id, merged);
    else items.delete(c.id);
    return true;
  }

  setUnread(id: string, n: number): void {
    const c = this.items.value.get(id);
    if (!c || c.unread_count === n) return;
    this.items.value = new Map(this.items.value).set(id, { ...c, unread_count: n });
  }

  /** The open conversation was read up to its newest message. */
  read = (id: string): void => {
    this.setUnread(id, 0);
    this.countsSoon();
  };

  onLive = (event: LiveEvent): void => {
    switch (event.kind) {
      case "ready":
        if (!event.resumed) void this.load();
        return;
      case "reset":
        return void this.load();
      case "bots_changed":
        // Joined, removed, renamed or deleted: the bots and (if one went away) the list change.
        this.loadBots();
        return void this.load();
      case "conversation_read":
        this.setUnread(event.conversation_id, event.unread_count);
        return this.countsSoon();
      case "conversation_created":
      case "message_created":
      case "conversation_updated":
      case "message_updated":
      case "message_deleted": {
        // Search runs on the server; with a query the list is simply asked again.
        const id = event.conversation.id;
        const incoming = event.kind === "message_created" && event.message?.direction === "in";
        const unread = incoming && (id !== this.openId.value || document.visibilityState !== "visible");
        if (this.query.value.trim()) this.reloadSoon();
        else this.upsert(event.conversation, unread ? messageOrder(event.message!) : undefined);
        return this.countsSoon();
      }
    }
  };

  start(): void {
    this.loadBots();
    void this.load();
  }

  stop(): void {
    for (const request of [this.list, this.more, this.countsRequest, this.botsRequest]) request.stop();
    this.stopLoadingBots?.();
    clearTimeout(this.searchTimer);
    clearTimeout(this.countsTimer);
  }
}
