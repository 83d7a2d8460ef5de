// One conversation: the message thread (live, paged), the reply box (canned replies, typing
// indicator), status and assignee, and the side panel with the contact and the note.
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import {
  contactName, currentUser, get, patch, post, STATUSES,
  type AssignableMember, type Conversation, type ConversationDetail, type InboxConversation, type Message, type Status, type User,
} from "./api.ts";
import { useCannedPicker } from "./canned.tsx";
import type { InboxStore } from "./inbox-store.ts";
import type { LiveEvent, LiveFeed } from "./live.ts";
import { PendingList, usePendingFiles, type FileRecord } from "./files.tsx";
import { Handoff } from "./rich.tsx";
import { ContactPanel } from "./side.tsx";
import { Thread, ThreadModel } from "./thread.tsx";
import { errorText, toast } from "./ui.tsx";
import { SnoozeControl } from "./snooze.tsx";

/** The server shows "typing…" in the widget for ~5 s; a ping this often keeps it up while typing goes on. */
const TYPING_PING_MS = 3_000;
/** Messages arriving together are marked read once. */
const READ_DEBOUNCE_MS = 400;
/** How long another member's "typing" notice stays up without a new ping (the widget's too). */
const OTHER_TYPING_MS = 5_000;
const UNASSIGNED = "";
const capitalized = (s: string) => s[0]!.toUpperCase() + s.slice(1);

type MetaPatch = { status?: Status; operator_note?: string; assignee_id?: string | null };

/** Rendered with key={id}: another conversation is another pane, its state fresh. */
export function ConversationPane({ id, store, live }: { id: string; store: InboxStore; live: LiveFeed }) {
  const [conversation, setConversation] = useState<InboxConversation | undefined>();
  const [detail, setDetail] = useState<ConversationDetail | undefined>();
  const [loadError, setLoadError] = useState("");
  const [members, setMembers] = useState<{ list: AssignableMember[]; me: User | undefined } | undefined>();
  /** null: the note as saved; a string: the operator's unsaved edit. */
  const [noteDraft, setNoteDraft] = useState<string | null>(null);
  const [noteState, setNoteState] = useState("");
  const [reply, setReply] = useState("");
  const [sending, setSending] = useState(false);
  const [othersTyping, setOthersTyping] = useState(false);
  const [sideOpen, setSideOpen] = useState(false);
  const thread = useMemo(() => new ThreadModel(id, (err) => toast(errorText(err), "error")), [id]);
  const replyBox = useRef<HTMLTextAreaElement>(null);
  const form = useRef<HTMLFormElement>(null);
  const timers = useRef({ read: undefined as ReturnType<typeof setTimeout> | undefined, typing: undefined as ReturnType<typeof setTimeout> | undefined, lastPing: 0 });
  const picker = useCannedPicker(replyBox, conversation?.bot_id, setReply);
  const pending = usePendingFiles(id);
  const fileInput = useRef<HTMLInputElement>(null);
  const [dropping, setDropping] = useState(false);

  /** A newer snapshot; edits and deletions carry older ones, which are ignored. */
  const showMeta = (c: Conversation | InboxConversation) =>
    setConversation((known) => (known && c.updated_at < known.updated_at ? known : ({ ...known, ...c } as InboxConversation)));

  const markRead = () => {
    clearTimeout(timers.current.read);
    timers.current.read = setTimeout(() => {
      if (document.visibilityState !== "visible") return;
      store.read(id);
      post(`/api/inbox/${id}/read`, {}).catch(() => {});
    }, READ_DEBOUNCE_MS);
  };

  const load = async () => {
    try {
      const fresh = await get<ConversationDetail>(`/api/inbox/${id}`);
      setConversation(fresh);
      setDetail(fresh);
      thread.reset(fresh);
      markRead();
    } catch (err) {
      setLoadError(errorText(err));
    }
  };

  useEffect(() => {
    let alive = true;
    void load();
    const readWhenVisible = () => {
      if (document.visibilityState === "visible" && (store.items.value.get(id)?.unread_count ?? 0) > 0) markRead();
    };
    document.addEventListener("visibilitychange", readWhenVisible);
    const stopLive = live.on((event: LiveEvent) => {
      if (!alive) return;
      if (event.kind === "reset") return void load();
      if (event.kind === "operator_typing" && event.conversation_id === id) {
        // Two members answering the same visitor at once is worth a word; one's own pings are not.
        void currentUser().then((me) => {
          if (!alive || event.user_id === me.id) return;
          setOthersTyping(true);
          clearTimeout(timers.current.typing);
          timers.current.typing = setTimeout(() => setOthersTyping(false), OTHER_TYPING_MS);
        }, () => {});
        return;
      }
      if (!("conversation" in event) || event.conversation.id !== id) return;
      const message = event.message;
      if (event.kind === "message_created" && message) {
        thread.add(message);
        if (message.direction === "in") markRead();
      } else if (event.kind === "message_updated" && message) {
        thread.update(message);
      } else if (event.kind === "message_deleted" && message) {
        thread.remove(message.id);
      }
      showMeta(event.conversation);
    });
    return () => {
      alive = false;
      stopLive();
      thread.close();
      clearTimeout(timers.current.read);
      clearTimeout(timers.current.typing);
      document.removeEventListener("visibilitychange", readWhenVisible);
    };
  }, [id]);

  /** Who the conversation can go to: every member of the bot (any member may ask). */
  const botId = conversation?.bot_id;
  useEffect(() => {
    if (!botId) return;
    let alive = true;
    void (async () => {
      const me = await currentUser().catch(() => undefined);
      let list: AssignableMember[] = [];
      try {
        list = await get<AssignableMember[]>(`/api/bots/${botId}/assignees`);
      } catch {
        if (me) list = [{ user_id: me.id, email: me.email, role: "operator", presence: "online" }];
      }
      if (alive) setMembers({ list, me });
    })();
    return () => void (alive = false);
  }, [botId]);

  const savePatch = async (body: MetaPatch) => {
    const updated = await patch<InboxConversation>(`/api/inbox/${id}`, body);
    showMeta(updated);
    store.upsert({ ...conversation!, ...updated });
  };
  const fail = (err: unknown) => toast(errorText(err), "error");

  const changeStatus = (e: Event) => {
    const status = (e.currentTarget as HTMLSelectElement).value as Status;
    savePatch({ status }).then(() => toast(`Marked as ${status}`), fail);
  };
  const changeAssignee = (e: Event) => {
    const select = e.currentTarget as HTMLSelectElement;
    const chosen = select.value || null;
    const label = select.selectedOptions[0]?.textContent ?? "";
    savePatch({ assignee_id: chosen }).then(() => toast(chosen ? `Assigned to ${label}` : "Unassigned"), fail);
  };
  const saveNote = async () => {
    try {
      await savePatch({ operator_note: noteDraft ?? conversation?.operator_note ?? "" });
      setNoteDraft(null);
      setNoteState("Saved");
    } catch (err) {
      setNoteState(errorText(err));
    }
  };

  const send = async (e: SubmitEvent) => {
    e.preventDefault();
    const text = reply.trim();
    const attachments = pending.ready;
    if (!text && !attachments.length) return;
    if (pending.uploading) return toast("Wait for the files to finish uploading", "error");
    setSending(true);
    try {
      // Replying is taking over: otherwise the bot keeps answering beside the operator.
      if (conversation?.handled_by === "bot") {
        const taken = await post<Conversation>(`/api/inbox/${id}/takeover`);
        showMeta(taken);
        store.upsert({ ...conversation, ...taken });
      }
      const message = await post<Message>(`/api/inbox/${id}`, attachments.length ? { text, attachments } : { text });
      setReply("");
      pending.clear();
      thread.add(message);
      thread.scrollDown();
    } catch (err) {
      fail(err);
    } finally {
      setSending(false);
      replyBox.current?.focus();
    }
  };
  const typed = (e: Event) => {
    const text = (e.currentTarget as HTMLTextAreaElement).value;
    setReply(text);
    picker.refresh();
    const now = Date.now();
    if (!text.trim() || now - timers.current.lastPing < TYPING_PING_MS) return;
    timers.current.lastPing = now;
    post(`/api/inbox/${id}/typing`).catch(() => {});
  };
  const keyDown = (e: KeyboardEvent) => {
    // The picker goes first: choosing a canned reply with Enter must not send.
    if (picker.keyDown(e)) return e.preventDefault();
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      form.current?.requestSubmit();
    }
  };

  const pasted = (e: ClipboardEvent) => {
    const files = [...(e.clipboardData?.files ?? [])];
    if (!files.length) return;
    e.preventDefault();
    pending.add(files);
  };
  const dragOver = (e: DragEvent) => {
    if (!e.dataTransfer?.types.includes("Files")) return;
    e.preventDefault();
    setDropping(true);
  };
  const dropped = (e: DragEvent) => {
    setDropping(false);
    const files = [...(e.dataTransfer?.files ?? [])];
    if (!files.length) return;
    e.preventDefault();
    pending.add(files);
  };
  const chosen = (e: Event) => {
    const input = e.currentTarget as HTMLInputElement;
    pending.add([...(input.files ?? [])]);
    input.value = "";
  };
  const files = useMemo(() => {
    // Newest first, each once: a file forwarded twice is one file.
    const seen = new Map<string, FileRecord>();
    for (const m of [...thread.messages.value].reverse()) for (const f of m.attachments ?? []) if (!seen.has(f.file_id)) seen.set(f.file_id, f);
    return [...seen.values()];
  }, [thread.messages.value]);

  if (loadError) return <div class="conv-pane"><div class="empty-pane"><p class="form-error" role="alert">{loadError}</p></div></div>;

  const c = conversation;
  const botName = c ? store.bots.value.get(c.bot_id)?.name ?? "Bot" : "";
  const assigned = c?.assignee;
  const options = members?.list ?? [];
  return (
    <div class={`conv-pane${sideOpen ? " side-open" : ""}`}>
      <header class="conv-head">
        <a href="#/inbox" class="back only-narrow">← Conversations</a>
        <div class="conv-title">
          <h2 tabIndex={-1}>{c ? contactName(c.contact, `Chat ${c.chat_id}`) : ""}</h2>
          <p class="muted small">{c ? `${botName} · ${c.channel} · #${c.number} · ${c.message_count} message${c.message_count === 1 ? "" : "s"}` : ""}</p>
          {c && <Handoff conversation={c} changed={(updated) => (showMeta(updated), store.upsert({ ...c, ...updated }))} />}
        </div>
        <div class="head-fields">
          <div class="inline-field">
            <label for="conv-assignee">Assignee</label>
            <select id="conv-assignee" value={assigned?.user_id ?? UNASSIGNED} onChange={changeAssignee}>
              <option value={UNASSIGNED}>Unassigned</option>
              {options.map((m) => <option key={m.user_id} value={m.user_id}>{m.user_id === members?.me?.id ? `Me (${m.email})` : m.email}</option>)}
              {assigned && !options.some((m) => m.user_id === assigned.user_id) && <option value={assigned.user_id}>{assigned.email}</option>}
            </select>
          </div>
          <div class="inline-field">
            <label for="conv-status">Status</label>
            <select id="conv-status" value={c?.status ?? STATUSES[0]} onChange={changeStatus}>
              {STATUSES.map((s) => <option key={s} value={s}>{capitalized(s)}</option>)}
            </select>
          </div>
          <SnoozeControl conversation={c} saved={(updated) => (showMeta(updated), store.upsert({ ...conversation!, ...updated }))} />
          <button type="button" class="ghost small only-medium" aria-controls="conv-side" aria-expanded={sideOpen} onClick={() => setSideOpen(!sideOpen)}>
            Details
          </button>
        </div>
      </header>
      <div class="conv-body">
        <div class="conv-thread">
          <Thread model={thread} />
          <p class="others-typing muted small" role="status">{othersTyping ? "Another operator is typing a reply…" : ""}</p>
          <PendingList items={pending.items} remove={pending.remove} />
          <form ref={form} class={`reply${dropping ? " dropping" : ""}`} onSubmit={send}
            onDragOver={dragOver} onDragLeave={(e) => !form.current?.contains(e.relatedTarget as Node | null) && setDropping(false)} onDrop={dropped}>
            {picker.popup}
            <input ref={fileInput} type="file" multiple hidden onChange={chosen} />
            <button type="button" class="ghost attach" aria-label="Attach a file" title="Attach a file (or paste, or drop it here)"
              onClick={() => fileInput.current?.click()}>
              {/* An outline paperclip: the machine's fonts may have no emoji. */}
              <svg viewBox="0 0 24 24" width="18" height="18" aria-hidden="true" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round">
                <path d="M21 11.5 12.5 20a5.5 5.5 0 0 1-7.8-7.8l8.5-8.5a3.7 3.7 0 0 1 5.2 5.2l-8.5 8.5a1.8 1.8 0 0 1-2.6-2.6l7.8-7.8" />
              </svg>
            </button>
            <textarea ref={replyBox} id="reply" rows={2} placeholder="Write a reply… (/ inserts a canned reply)"
              title="Enter sends, Shift+Enter adds a line, / inserts a canned reply" aria-label="Reply" maxLength={4096}
              value={reply} onInput={typed} onKeyDown={keyDown} onPaste={pasted} onBlur={picker.close} {...picker.areaProps} />
            <button type="submit" class="primary" disabled={sending || pending.uploading}>Send</button>
          </form>
        </div>
        <aside class="conv-side" id="conv-side" aria-label="Details">
          <h3>Contact</h3>
          {detail ? <ContactPanel detail={detail} files={files} /> : <div class="contacts" />}
          <h3><label for="conv-note">Operator note</label></h3>
          <textarea id="conv-note" rows={4} placeholder="Only operators see this note" maxLength={10000}
            value={noteDraft ?? c?.operator_note ?? ""} onInput={(e) => (setNoteDraft(e.currentTarget.value), setNoteState("Unsaved"))} />
          <div class="actions">
            <button type="button" class="ghost small" onClick={saveNote}>Save note</button>
            <span class="muted small" role="status">{noteState}</span>
          </div>
        </aside>
      </div>
    </div>
  );
}
