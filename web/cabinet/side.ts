// The conversation's side panel: who the visitor is, where they wrote from (page URL and
// title), the channel, when they were first seen, their other conversations; and the note.
import { contactName, type ConversationDetail } from "./api.ts";
import { formatTime, h, replace } from "./dom.ts";

const entry = (label: string, value: Node | string) => [h("dt", null, label), h("dd", null, value)];

/** Only http(s) pages become links; anything else is shown as text. */
function pageLink(url: string, title: string | null): Node {
  const safe = /^https?:\/\//i.test(url);
  return safe
    ? h("a", { href: url, target: "_blank", rel: "noopener noreferrer nofollow" }, title || url)
    : h("span", null, title || url);
}

export function renderContactPanel(target: HTMLElement, detail: ConversationDetail): void {
  const contact = detail.contacts[0] ?? detail.contact;
  const page = detail.page;
  const others = (detail.contact_conversations ?? []).filter((c) => c.id !== detail.id);
  replace(target,
    h("dl", { class: "contact" },
      entry("Name", contactName(contact, "—")),
      contact?.email ? entry("E-mail", contact.email) : null,
      contact?.phone ? entry("Phone", contact.phone) : null,
      contact?.external_user_id ? entry("External id", h("code", null, contact.external_user_id)) : null,
      entry("Channel", detail.channel),
      entry("Chat id", h("code", null, detail.chat_id)),
      page?.url ? entry("Page", pageLink(page.url, page.title)) : page?.title ? entry("Page", page.title) : null,
      entry("First seen", formatTime(contact?.created_at ?? detail.created_at)),
      contact ? entry("Contact #", String(contact.number)) : null,
    ),
    detail.contacts.length > 1
      ? h("p", { class: "muted small" }, `Also in this chat: ${detail.contacts.slice(1).map((c) => contactName(c, "—")).join(", ")}`)
      : null,
    others.length
      ? [
          h("h3", null, "Other conversations"),
          h("ul", { class: "other-convs", "aria-label": "Other conversations of this contact" },
            others.map((c) => h("li", null,
              h("a", { href: `#/inbox/${c.id}` }, `${c.channel} · ${formatTime(c.last_message_at)}`),
              " ", h("span", { class: `pill status-${c.status}` }, c.status),
            ))),
        ]
      : null,
  );
}
