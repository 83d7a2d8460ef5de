// The conversation's side panel: who the visitor is, where they wrote from (page URL and
// title), the channel, when they were first seen, their other conversations.
import type { ComponentChildren } from "preact";
import { contactName, type ConversationDetail } from "./api.ts";
import { ConversationFiles, type FileRecord } from "./files.tsx";
import { formatTime } from "./ui.tsx";

const Entry = ({ label, children }: { label: string; children: ComponentChildren }) => <><dt>{label}</dt><dd>{children}</dd></>;

/** Only http(s) pages become links; anything else is shown as text. */
function PageLink({ url, title }: { url: string; title: string | null }) {
  return /^https?:\/\//i.test(url)
    ? <a href={url} target="_blank" rel="noopener noreferrer nofollow">{title || url}</a>
    : <span>{title || url}</span>;
}

export function ContactPanel({ detail, files }: { detail: ConversationDetail; files: FileRecord[] }) {
  const contact = detail.contacts[0] ?? detail.contact;
  const page = detail.page;
  const others = detail.contact_conversations.filter((c) => c.id !== detail.id);
  return (
    <div class="contacts">
      <dl class="contact">
        <Entry label="Name">{contactName(contact, "—")}</Entry>
        {contact?.email && <Entry label="E-mail">{contact.email}</Entry>}
        {contact?.phone && <Entry label="Phone">{contact.phone}</Entry>}
        {contact?.external_user_id && <Entry label="External id"><code>{contact.external_user_id}</code></Entry>}
        {contact?.verified && <Entry label="Identity"><span class="pill verified" title="The site signed this user's id with the bot's identity secret">Verified</span></Entry>}
        <Entry label="Channel">{detail.channel}</Entry>
        <Entry label="Chat id"><code>{detail.chat_id}</code></Entry>
        {page?.url ? <Entry label="Page"><PageLink url={page.url} title={page.title} /></Entry> : page?.title ? <Entry label="Page">{page.title}</Entry> : null}
        <Entry label="First seen">{formatTime(contact?.created_at ?? detail.created_at)}</Entry>
        {contact && <Entry label="Contact #">{String(contact.number)}</Entry>}
        {detail.rating && (
          <Entry label="Rating">
            <span class="rating" aria-label={`${detail.rating.rating} of 5`}>{`${"★".repeat(detail.rating.rating)}${"☆".repeat(5 - detail.rating.rating)}`}</span>
            {detail.rating.comment && <span class="rating-comment">{` “${detail.rating.comment}”`}</span>}
          </Entry>
        )}
      </dl>
      {detail.contacts.length > 1 && (
        <p class="muted small">{`Also in this chat: ${detail.contacts.slice(1).map((c) => contactName(c, "—")).join(", ")}`}</p>
      )}
      <h3>Files</h3>
      <ConversationFiles files={files} />
      {others.length > 0 && (
        <>
          <h3>Other conversations</h3>
          <ul class="other-convs" aria-label="Other conversations of this contact">
            {others.map((c) => (
              <li key={c.id}>
                <a href={`#/inbox/${c.id}`}>{`${c.channel} · ${formatTime(c.last_message_at)}`}</a>{" "}
                <span class={`pill status-${c.status}`}>{c.status}</span>
              </li>
            ))}
          </ul>
        </>
      )}
    </div>
  );
}
