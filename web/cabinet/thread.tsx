// A conversation's message log: opens at the newest message and pages older ones in
// (GET /api/inbox/:id?before=<message_id>) when the operator scrolls to the top or presses
// "Load older messages". The scroll position stays on what the operator was reading.
import { batch, signal } from "@preact/signals";
import { useLayoutEffect, useRef } from "preact/hooks";
import { get, type ConversationDetail, type Message } from "./api.ts";
import { Attachments, FileViewer } from "./files.tsx";
import { MessageText } from "./rich.tsx";
import { formatTime, Latest } from "./ui.tsx";

const SENDER_LABEL: Record<Message["sender"], string> = { user: "Visitor", bot: "Bot", operator: "Operator" };
/** Closer than this to the top, the next older page is fetched; closer to the bottom, new messages follow. */
const EDGE_PX = 120;

/** Where the log should be once the next render is on screen. */
type ScrollIntent = { to: "bottom" } | { to: "keep"; fromBottom: number };

/** The log's state; the Thread component draws it and carries out the scroll it asks for. */
export class ThreadModel {
  /** Oldest first, keyed by id. */
  readonly messages = signal<Message[]>([]);
  readonly deleted = signal<ReadonlySet<string>>(new Set());
  readonly complete = signal(false);
  readonly loading = signal(false);
  root: HTMLElement | null = null;
  private scroll: ScrollIntent | undefined;
  private readonly older = new Latest();

  constructor(
    private readonly conversationId: string,
    private readonly onError: (err: unknown) => void,
  ) {}

  private atBottom(): boolean {
    const root = this.root;
    return !root || root.scrollHeight - root.scrollTop - root.clientHeight < EDGE_PX;
  }

  /** The newest page, replacing whatever was shown; the view lands on the newest message. */
  reset(detail: ConversationDetail): void {
    this.older.stop();
    this.scroll = { to: "bottom" };
    batch(() => {
      this.messages.value = detail.messages;
      this.deleted.value = new Set();
      this.loading.value = false;
      // Everything is in when the first page holds every message the conversation has.
      this.complete.value = detail.messages.length === 0 || detail.messages.length >= detail.message_count;
    });
  }

  add(m: Message): void {
    if (this.messages.value.some((known) => known.id === m.id)) return;
    if (this.atBottom()) this.scroll = { to: "bottom" };
    this.messages.value = [...this.messages.value, m];
  }

  update(m: Message): void {
    if (this.messages.value.some((known) => known.id === m.id)) this.messages.value = this.messages.value.map((known) => (known.id === m.id ? m : known));
  }

  remove(id: string): void {
    this.deleted.value = new Set(this.deleted.value).add(id);
  }

  scrollDown(): void {
    this.scroll = { to: "bottom" };
  }

  loadOlder = async (): Promise<void> => {
    const shown = this.messages.value;
    if (this.loading.value || this.complete.value || !shown.length) return;
    const oldest = Math.min(...shown.map((m) => Number(m.message_id)));
    this.loading.value = true;
    try {
      const detail = await this.older.run(() => get<ConversationDetail>(`/api/inbox/${this.conversationId}?before=${oldest}`));
      if (!detail) return;
      const known = new Set(this.messages.value.map((m) => m.id));
      const fresh = detail.messages.filter((m) => !known.has(m.id));
      // Keeps the message the operator was looking at in place while the page grows above it.
      if (this.root) this.scroll = { to: "keep", fromBottom: this.root.scrollHeight - this.root.scrollTop };
      batch(() => {
        // An empty page is the end; so is one that brings nothing new.
        if (!fresh.length) this.complete.value = true;
        this.messages.value = [...fresh, ...this.messages.value];
      });
    } catch (err) {
      this.onError(err);
    } finally {
      this.loading.value = false;
    }
  };

  /** After each render: the scroll asked for, then more history while the top is still in view. */
  settle(): void {
    const root = this.root;
    const intent = this.scroll;
    if (!root) return;
    this.scroll = undefined;
    if (intent?.to === "bottom") root.scrollTop = root.scrollHeight;
    else if (intent?.to === "keep") root.scrollTop = root.scrollHeight - intent.fromBottom;
    // A short page may leave the top still in view: keep going while it is.
    if (intent?.to === "keep" && !this.complete.value && root.scrollTop < EDGE_PX) void this.loadOlder();
  }

  close(): void {
    this.older.stop();
  }
}

function Bubble({ m, deleted }: { m: Message; deleted: boolean }) {
  return (
    <div class={`bubble ${m.direction} ${m.sender}${deleted ? " deleted" : ""}${m.private ? " private" : ""}`} data-id={m.id} data-message-id={m.message_id}>
      <MessageText m={m} />
      <Attachments files={m.attachments} />
      <div class="meta">{`${m.private ? `Private note · ${String(m.metadata.operator_name ?? "")} · ` : SENDER_LABEL[m.sender] + " · "}${formatTime(m.created_at)}${m.edited_at ? " · edited" : ""}`}</div>
    </div>
  );
}

export function Thread({ model }: { model: ThreadModel }) {
  const root = useRef<HTMLDivElement>(null);
  const messages = model.messages.value;
  const deleted = model.deleted.value;
  const complete = model.complete.value;
  const loading = model.loading.value;
  useLayoutEffect(() => {
    model.root = root.current;
    model.settle();
  });
  const onScroll = () => {
    if (root.current!.scrollTop < EDGE_PX) void model.loadOlder();
  };
  return (
    <div ref={root} class="messages" role="log" aria-live="polite" aria-label="Messages" tabIndex={0} onScroll={onScroll}>
      <div class="thread-top">
        <button type="button" class="ghost small load-older" hidden={complete} disabled={loading} onClick={model.loadOlder}>
          {loading ? "Loading older messages…" : "Load older messages"}
        </button>
        <p class="muted small thread-start" hidden={!complete || messages.length === 0}>Start of the conversation</p>
      </div>
      <div class="message-list">
        {messages.length ? messages.map((m) => <Bubble key={m.id} m={m} deleted={deleted.has(m.id)} />) : <p class="muted empty">No messages yet.</p>}
      </div>
      <FileViewer />
    </div>
  );
}
