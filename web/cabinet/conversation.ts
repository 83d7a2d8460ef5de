// One conversation: messages (live), contacts, the reply box, status and note.
import {
  contactName, get, patch, post, STATUSES,
  type Bot, type Contact, type Conversation, type ConversationDetail, type Message, type Status,
} from "./api.ts";
import { formatTime, h, replace, toast } from "./dom.ts";
import { handoffControl, messageText } from "./rich.ts";

export interface ConversationPane {
  /** A live event (kind as the stream names it); those of other conversations are ignored. */
  onEvent(kind: string, data: any): void;
  reload(): void;
  close(): void;
}

const SENDER_LABEL: Record<Message["sender"], string> = { user: "Visitor", bot: "Bot", operator: "You" };

export function conversationPane(
  pane: HTMLElement, id: string, bots: Map<string, Bot>, changed: (c: Conversation) => void,
): ConversationPane {
  let alive = true;
  let conversation: Conversation | undefined;
  const bubbles = new Map<string, HTMLElement>();

  const log = h("div", { class: "messages", role: "log", "aria-live": "polite", "aria-label": "Messages", tabindex: "0" });
  const title = h("h2", { tabindex: "-1" });
  const subtitle = h("p", { class: "muted small" });
  const status = h("select", { id: "conv-status" }, STATUSES.map((s) => h("option", { value: s }, s[0]!.toUpperCase() + s.slice(1))));
  const note = h("textarea", { id: "conv-note", rows: 4, placeholder: "Only operators see this note", maxlength: 10000 });
  const noteState = h("span", { class: "muted small", role: "status" });
  let noteDirty = false;
  const contacts = h("div", { class: "contacts" });
  const reply = h("textarea", { id: "reply", rows: 2, placeholder: "Write a reply… (Enter sends, Shift+Enter adds a line)", "aria-label": "Reply", maxlength: 4096 });
  const send = h("button", { type: "submit", class: "primary" }, "Send");

  const atBottom = () => log.scrollHeight - log.scrollTop - log.clientHeight < 40;
  const scrollDown = () => (log.scrollTop = log.scrollHeight);

  const addMessage = (m: Message) => {
    if (bubbles.has(m.id)) return;
    const follow = atBottom();
    const text = messageText(m);
    const meta = h("div", { class: "meta" }, `${SENDER_LABEL[m.sender]} · ${formatTime(m.created_at)}`, m.edited_at ? " · edited" : "");
    const el = h("div", { class: `bubble ${m.direction} ${m.sender}`, "data-id": m.id }, text, meta);
    bubbles.set(m.id, el);
    log.append(el);
    if (follow) scrollDown();
  };

  const handoff = handoffControl(id, (c) => changed(c));
  const showMeta = (c: Conversation) => {
    conversation = c;
    title.textContent = contactName(c.contact, `Chat ${c.chat_id}`);
    const bot = bots.get(c.bot_id)?.name ?? "Bot";
    subtitle.textContent = `${bot} · ${c.channel} · #${c.number} · ${c.message_count} message${c.message_count === 1 ? "" : "s"}`;
    handoff.show(c);
    if (document.activeElement !== status) status.value = c.status;
    if (!noteDirty && document.activeElement !== note) note.value = c.operator_note;
  };

  const showContacts = (list: Contact[]) =>
    replace(contacts, list.length
      ? list.map((c) => h("dl", { class: "contact" },
          h("dt", null, "Name"), h("dd", null, contactName(c, "—")),
          h("dt", null, "Chat id"), h("dd", null, h("code", null, conversation?.chat_id ?? "")),
          c.email ? [h("dt", null, "E-mail"), h("dd", null, c.email)] : null,
          c.phone ? [h("dt", null, "Phone"), h("dd", null, c.phone)] : null,
          c.external_user_id ? [h("dt", null, "External id"), h("dd", null, h("code", null, c.external_user_id))] : null,
          h("dt", null, "Contact #"), h("dd", null, String(c.number)),
        ))
      : h("p", { class: "muted small" }, "No contact details yet."));

  const load = async () => {
    try {
      const detail = await get<ConversationDetail>(`/api/inbox/${id}`);
      if (!alive) return;
      showMeta(detail);
      showContacts(detail.contacts);
      log.replaceChildren();
      bubbles.clear();
      for (const m of detail.messages) addMessage(m);
      if (!detail.messages.length) log.append(h("p", { class: "muted empty" }, "No messages yet."));
      scrollDown();
    } catch (err) {
      if (alive) replace(pane, h("div", { class: "empty-pane" }, h("p", { class: "form-error", role: "alert" }, (err as Error).message)));
    }
  };

  const savePatch = async (body: { status?: Status; operator_note?: string }) => {
    const updated = await patch<Conversation>(`/api/inbox/${id}`, body);
    showMeta(updated);
    changed(updated);
  };

  status.addEventListener("change", () => {
    savePatch({ status: status.value as Status }).then(
      () => toast(`Marked as ${status.value}`),
      (err: Error) => toast(err.message, "error"),
    );
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
        log.querySelector(".empty")?.remove();
        addMessage(message);
        scrollDown();
      } catch (err) {
        toast((err as Error).message, "error");
      } finally {
        send.disabled = false;
        reply.focus();
      }
    },
  }, reply, send);
  reply.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      form.requestSubmit();
    }
  });

  replace(pane,
    h("header", { class: "conv-head" },
      h("a", { href: "#/inbox", class: "back only-narrow" }, "← Conversations"),
      h("div", { class: "conv-title" }, title, subtitle, handoff.el),
      h("div", { class: "status-field" }, h("label", { for: "conv-status" }, "Status"), status),
    ),
    h("div", { class: "conv-body" },
      h("div", { class: "conv-thread" }, log, form),
      h("aside", { class: "conv-side", "aria-label": "Details" },
        h("h3", null, "Contact"),
        contacts,
        h("h3", null, h("label", { for: "conv-note" }, "Operator note")),
        note,
        h("div", { class: "actions" }, saveNote, noteState),
      ),
    ),
  );
  void load();

  return {
    onEvent(kind, data) {
      if (kind === "reset") return void load();
      if (data?.conversation?.id !== id) return;
      const message: Message | undefined = data.message;
      if (kind === "message_created" && message) {
        log.querySelector(".empty")?.remove();
        addMessage(message);
      } else if (kind === "message_updated" && message) {
        const el = bubbles.get(message.id);
        if (el) {
          el.querySelector(".text")!.replaceWith(messageText(message));
          if (!el.querySelector(".meta")!.textContent!.endsWith("edited")) el.querySelector(".meta")!.append(" · edited");
        }
      } else if (kind === "message_deleted" && message) {
        bubbles.get(message.id)?.classList.add("deleted");
      }
      // Edits and deletions carry an older conversation snapshot; only newer ones count.
      if (!conversation || data.conversation.updated_at >= conversation.updated_at) showMeta(data.conversation);
    },
    reload: () => void load(),
    close: () => (alive = false),
  };
}
