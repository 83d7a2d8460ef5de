// One conversation: the message thread (live, paged), the reply box (canned replies, typing
// indicator), status and assignee, and the side panel with the contact and the note.
import {
  contactName, currentUser, get, patch, post, STATUSES,
  type Assignee, type Bot, type ConversationDetail, type InboxConversation, type Message, type Status,
} from "./api.ts";
import { cannedPicker } from "./canned.ts";
import { h, replace, toast } from "./dom.ts";
import { handoffControl } from "./rich.ts";
import { renderContactPanel } from "./side.ts";
import { messageThread } from "./thread.ts";

export interface ConversationPane {
  /** A live event (kind as the stream names it); those of other conversations are ignored. */
  onEvent(kind: string, data: any): void;
  reload(): void;
  close(): void;
}

export interface PaneHooks {
  bots: Map<string, Bot>;
  /** The conversation changed here (status, note, assignee): the list shows it at once. */
  changed(c: InboxConversation): void;
  /** The operator has read up to the newest message. */
  read(id: string): void;
}

/** The server shows "typing…" in the widget for ~5 s; a ping this often keeps it up while typing goes on. */
const TYPING_PING_MS = 3_000;
/** Messages arriving together are marked read once. */
const READ_DEBOUNCE_MS = 400;
const UNASSIGNED = "";
type Assignable = { user_id: string; email: string };
/** How long another member's "typing" notice stays up without a new ping (the widget's too). */
const OTHER_TYPING_MS = 5_000;

export function conversationPane(pane: HTMLElement, id: string, hooks: PaneHooks): ConversationPane {
  let alive = true;
  let conversation: InboxConversation | undefined;
  let botId: string | undefined;
  let lastTypingPing = 0;
  let readTimer: ReturnType<typeof setTimeout> | undefined;

  const fail = (err: Error) => toast(err.message, "error");
  const thread = messageThread(id, fail);
  const title = h("h2", { tabindex: "-1" });
  const subtitle = h("p", { class: "muted small" });
  const status = h("select", { id: "conv-status" }, STATUSES.map((s) => h("option", { value: s }, s[0]!.toUpperCase() + s.slice(1))));
  const assignee = h("select", { id: "conv-assignee" }, h("option", { value: UNASSIGNED }, "Unassigned"));
  const note = h("textarea", { id: "conv-note", rows: 4, placeholder: "Only operators see this note", maxlength: 10000 });
  const noteState = h("span", { class: "muted small", role: "status" });
  let noteDirty = false;
  const contactPanel = h("div", { class: "contacts" });
  const reply = h("textarea", { id: "reply", rows: 2, placeholder: "Write a reply… (/ inserts a canned reply)", title: "Enter sends, Shift+Enter adds a line, / inserts a canned reply", "aria-label": "Reply", maxlength: 4096 });
  const send = h("button", { type: "submit", class: "primary" }, "Send");
  const othersTyping = h("p", { class: "others-typing muted small", role: "status" });
  let othersTypingTimer: ReturnType<typeof setTimeout> | undefined;
  const side = h("aside", { class: "conv-side", id: "conv-side", "aria-label": "Details" });
  const detailsToggle = h("button", {
    type: "button", class: "ghost small only-medium", "aria-controls": "conv-side", "aria-expanded": "false",
    onclick: () => {
      const open = !pane.classList.contains("side-open");
      pane.classList.toggle("side-open", open);
      detailsToggle.setAttribute("aria-expanded", String(open));
    },
  }, "Details");

  const showAssignee = (a: Assignee | undefined) => {
    const value = a?.user_id ?? UNASSIGNED;
    if (a && ![...assignee.options].some((o) => o.value === a.user_id)) assignee.append(h("option", { value: a.user_id }, a.email));
    if (document.activeElement !== assignee) assignee.value = value;
  };

  // Take over / give back (issue 14): who answers the visitor, the bot or the team.
  const handoff = handoffControl(id, (c) => {
    showMeta(c);
    hooks.changed({ ...conversation!, ...c });
  });
  const showMeta = (c: InboxConversation) => {
    conversation = { ...conversation, ...c };
    botId = c.bot_id;
    title.textContent = contactName(c.contact, `Chat ${c.chat_id}`);
    const bot = hooks.bots.get(c.bot_id)?.name ?? "Bot";
    subtitle.textContent = `${bot} · ${c.channel} · #${c.number} · ${c.message_count} message${c.message_count === 1 ? "" : "s"}`;
    handoff.show(conversation);
    if (document.activeElement !== status) status.value = c.status;
    if (!noteDirty && document.activeElement !== note) note.value = c.operator_note;
    if ("assignee" in c) showAssignee(c.assignee);
  };

  /** Who the conversation can go to: every member of the bot (any member may ask). */
  const loadMembers = async (bot: string) => {
    const me = await currentUser().catch(() => undefined);
    let members: Assignable[] = [];
    try {
      members = await get<Assignable[]>(`/api/bots/${bot}/assignees`);
    } catch {
      if (me) members = [{ user_id: me.id, email: me.email }];
    }
    if (!alive) return;
    const current = conversation?.assignee;
    replace(assignee, h("option", { value: UNASSIGNED }, "Unassigned"),
      members.map((m) => h("option", { value: m.user_id }, m.user_id === me?.id ? `Me (${m.email})` : m.email)));
    showAssignee(current);
  };

  const markRead = () => {
    clearTimeout(readTimer);
    readTimer = setTimeout(() => {
      if (!alive || document.visibilityState !== "visible") return;
      hooks.read(id);
      post(`/api/inbox/${id}/read`, {}).catch(() => {});
    }, READ_DEBOUNCE_MS);
  };
  const readWhenVisible = () => {
    if (document.visibilityState === "visible" && (conversation?.unread_count ?? 0) > 0) markRead();
  };
  document.addEventListener("visibilitychange", readWhenVisible);

  const load = async () => {
    try {
      const detail = await get<ConversationDetail>(`/api/inbox/${id}`);
      if (!alive) return;
      const firstLoad = !conversation;
      showMeta(detail);
      renderContactPanel(contactPanel, detail);
      thread.reset(detail);
      markRead();
      if (firstLoad) void loadMembers(detail.bot_id);
    } catch (err) {
      if (alive) replace(pane, h("div", { class: "empty-pane" }, h("p", { class: "form-error", role: "alert" }, (err as Error).message)));
    }
  };

  const savePatch = async (body: { status?: Status; operator_note?: string; assignee_id?: string | null }) => {
    const updated = await patch<InboxConversation>(`/api/inbox/${id}`, body);
    showMeta(updated);
    hooks.changed({ ...conversation!, ...updated });
  };

  status.addEventListener("change", () => {
    savePatch({ status: status.value as Status }).then(() => toast(`Marked as ${status.value}`), fail);
  });
  assignee.addEventListener("change", () => {
    const chosen = assignee.value || null;
    const label = assignee.selectedOptions[0]?.textContent ?? "";
    savePatch({ assignee_id: chosen }).then(() => toast(chosen ? `Assigned to ${label}` : "Unassigned"), fail);
  });
  note.addEventListener("input", () => {
    noteDirty = true;
    noteState.textContent = "Unsaved";
  });
  const saveNote = h("button", {
    type: "button",
    class: "ghost small",
    onclick: async () => {
      try {
        await savePatch({ operator_note: note.value });
        noteDirty = false;
        noteState.textContent = "Saved";
      } catch (err) {
        noteState.textContent = (err as Error).message;
      }
    },
  }, "Save note");

  const picker = cannedPicker(reply, () => botId);
  const form = h("form", {
    class: "reply",
    onsubmit: async (e: SubmitEvent) => {
      e.preventDefault();
      const text = reply.value.trim();
      if (!text) return;
      send.disabled = true;
      try {
        const message = await post<Message>(`/api/inbox/${id}`, { text });
        reply.value = "";
        thread.add(message);
        thread.scrollDown();
      } catch (err) {
        fail(err as Error);
      } finally {
        send.disabled = false;
        reply.focus();
      }
    },
  }, picker, reply, send);
  reply.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      form.requestSubmit();
    }
  });
  reply.addEventListener("input", () => {
    const now = Date.now();
    if (!reply.value.trim() || now - lastTypingPing < TYPING_PING_MS) return;
    lastTypingPing = now;
    post(`/api/inbox/${id}/typing`).catch(() => {});
  });

  replace(side,
    h("h3", null, "Contact"),
    contactPanel,
    h("h3", null, h("label", { for: "conv-note" }, "Operator note")),
    note,
    h("div", { class: "actions" }, saveNote, noteState),
  );
  replace(pane,
    h("header", { class: "conv-head" },
      h("a", { href: "#/inbox", class: "back only-narrow" }, "← Conversations"),
      h("div", { class: "conv-title" }, title, subtitle, handoff.el),
      h("div", { class: "head-fields" },
        h("div", { class: "inline-field" }, h("label", { for: "conv-assignee" }, "Assignee"), assignee),
        h("div", { class: "inline-field" }, h("label", { for: "conv-status" }, "Status"), status),
        detailsToggle,
      ),
    ),
    h("div", { class: "conv-body" },
      h("div", { class: "conv-thread" }, thread.root, othersTyping, form),
      side,
    ),
  );
  void load();

  return {
    onEvent(kind, data) {
      if (kind === "reset") return void load();
      if (kind === "operator_typing" && data?.conversation_id === id) {
        // Two members answering the same visitor at once is worth a word; one's own pings are not.
        void currentUser().then((me) => {
          if (!alive || data.user_id === me.id) return;
          othersTyping.textContent = "Another operator is typing a reply…";
          clearTimeout(othersTypingTimer);
          othersTypingTimer = setTimeout(() => (othersTyping.textContent = ""), OTHER_TYPING_MS);
        }, () => {});
        return;
      }
      if (data?.conversation?.id !== id) return;
      const message: Message | undefined = data.message;
      if (kind === "message_created" && message) {
        thread.add(message);
        if (message.direction === "in") markRead();
      } else if (kind === "message_updated" && message) {
        thread.update(message);
      } else if (kind === "message_deleted" && message) {
        thread.remove(message.id);
      }
      // Edits and deletions carry an older conversation snapshot; only newer ones count.
      if (!conversation || data.conversation.updated_at >= conversation.updated_at) showMeta(data.conversation);
    },
    reload: () => void load(),
    close: () => {
      alive = false;
      thread.close();
      clearTimeout(readTimer);
      clearTimeout(othersTypingTimer);
      document.removeEventListener("visibilitychange", readWhenVisible);
    },
  };
}
