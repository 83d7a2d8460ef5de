// The Contacts page: a bot's contacts with search, an edit form (name, e-mail, phone,
// attributes), merging one contact into another, and the CSV export.
import { useEffect, useState } from "preact/hooks";
import { api, get, patch, post, session, type Bot, type Contact } from "./api.ts";
import { toast } from "./ui.tsx";

type ContactDetail = Contact & { bot_id: string; conversations: { id: string; chat_id: string; channel: string; status: string }[] };

const label = (c: Contact) => c.name || [c.first_name, c.last_name].filter(Boolean).join(" ") || c.email || c.phone || `Contact #${c.number}`;

export function ContactsView() {
  const [bots, setBots] = useState<Bot[]>([]);
  const [botId, setBotId] = useState("");
  const [q, setQ] = useState("");
  const [list, setList] = useState<Contact[]>([]);
  const [open, setOpen] = useState<ContactDetail | null>(null);
  useEffect(() => {
    get<Bot[]>("/api/bots").then((b) => {
      setBots(b);
      if (b[0]) setBotId(b[0].id);
    }, (err) => toast((err as Error).message, "error"));
  }, []);
  const reload = () => {
    if (!botId) return;
    const params = new URLSearchParams(q.trim() ? { q: q.trim() } : {});
    get<Contact[]>(`/api/bots/${botId}/contacts?${params}`).then(setList, (err) => toast((err as Error).message, "error"));
  };
  useEffect(() => {
    const timer = setTimeout(reload, 250);
    return () => clearTimeout(timer);
  }, [botId, q]);
  const select = (id: string) => get<ContactDetail>(`/api/contacts/${id}`).then(setOpen, (err) => toast((err as Error).message, "error"));

  const exportCsv = async () => {
    // The export needs the token: fetched here and handed to the browser as a file.
    const res = await fetch(`/api/bots/${botId}/contacts.csv`, { headers: { authorization: `Bearer ${session.token}` } });
    if (!res.ok) return toast("The export failed", "error");
    const link = document.createElement("a");
    link.href = URL.createObjectURL(await res.blob());
    link.download = "contacts.csv";
    link.click();
    URL.revokeObjectURL(link.href);
  };

  return (
    <section class="page contacts-page">
      <h1 tabIndex={-1}>Contacts</h1>
      <div class="filters row">
        <select aria-label="Bot" value={botId} onChange={(e) => { setBotId(e.currentTarget.value); setOpen(null); }}>
          {bots.map((b) => <option key={b.id} value={b.id}>{b.name}</option>)}
        </select>
        <input type="search" aria-label="Search contacts" placeholder="Search name, e-mail, phone…" value={q} onInput={(e) => setQ(e.currentTarget.value)} />
        <button type="button" class="ghost small" disabled={!botId} onClick={() => void exportCsv()}>Export CSV</button>
      </div>
      <div class="grid">
        <table class="contacts-table" aria-label="Contacts">
          <thead><tr><th>Name</th><th>E-mail</th><th>Phone</th></tr></thead>
          <tbody>
            {list.map((c) => (
              <tr key={c.id} aria-selected={open?.id === c.id}>
                <td><button type="button" class="linkish" onClick={() => void select(c.id)}>{label(c)}</button></td>
                <td>{c.email ?? ""}</td>
                <td>{c.phone ?? ""}</td>
              </tr>
            ))}
            {!list.length && <tr><td colSpan={3} class="muted">No contacts.</td></tr>}
          </tbody>
        </table>
        {open && <ContactEditor key={open.id} contact={open} others={list.filter((c) => c.id !== open.id)} done={(next) => { setOpen(next); reload(); }} />}
      </div>
    </section>
  );
}

function ContactEditor({ contact, others, done }: { contact: ContactDetail; others: Contact[]; done: (c: ContactDetail | null) => void }) {
  const [name, setName] = useState(contact.name ?? "");
  const [email, setEmail] = useState(contact.email ?? "");
  const [phone, setPhone] = useState(contact.phone ?? "");
  const [attributes, setAttributes] = useState(JSON.stringify(contact.attributes ?? {}));
  const [into, setInto] = useState("");
  const save = async (e: Event) => {
    e.preventDefault();
    try {
      const parsed = JSON.parse(attributes || "{}");
      done(await patch<ContactDetail>(`/api/contacts/${contact.id}`, { name: name || null, email: email || null, phone: phone || null, attributes: parsed }));
      toast("Contact saved");
    } catch (err) {
      toast(err instanceof SyntaxError ? "Attributes must be a JSON object" : (err as Error).message, "error");
    }
  };
  const merge = async () => {
    try {
      const merged = await post<ContactDetail>(`/api/contacts/${contact.id}/merge`, { into });
      toast(`Merged into ${label(merged)}`);
      done(merged);
    } catch (err) {
      toast((err as Error).message, "error");
    }
  };
  return (
    <section class="card contact-editor" aria-label={`Contact ${label(contact)}`}>
      <h2>{label(contact)}</h2>
      <form class="stack" onSubmit={save}>
        <label>Name <input value={name} onInput={(e) => setName(e.currentTarget.value)} maxLength={256} /></label>
        <label>E-mail <input type="email" value={email} onInput={(e) => setEmail(e.currentTarget.value)} /></label>
        <label>Phone <input value={phone} onInput={(e) => setPhone(e.currentTarget.value)} /></label>
        <label>Attributes (JSON) <input value={attributes} onInput={(e) => setAttributes(e.currentTarget.value)} /></label>
        <button type="submit" class="primary">Save contact</button>
      </form>
      <h3>Conversations</h3>
      <ul class="contact-conversations">
        {contact.conversations.map((c) => <li key={c.id}><a href={`#/inbox/${c.id}`}>{`${c.channel} · ${c.chat_id}`}</a> <span class={`pill status-${c.status}`}>{c.status}</span></li>)}
      </ul>
      <h3>Merge</h3>
      <div class="row">
        <select aria-label="Merge into" value={into} onChange={(e) => setInto(e.currentTarget.value)}>
          <option value="">Merge into…</option>
          {others.map((c) => <option key={c.id} value={c.id}>{label(c)}</option>)}
        </select>
        <button type="button" disabled={!into} onClick={() => void merge()}>Merge</button>
      </div>
    </section>
  );
}

interface Mention {
  id: string;
  conversation_id: string;
  chat_id: string;
  text: string;
  by: { email: string } | null;
  created_at: string;
}

export function MentionsView() {
  const [list, setList] = useState<Mention[] | null>(null);
  useEffect(() => {
    api<Mention[]>("GET", "/api/me/mentions").then(setList, (err) => toast((err as Error).message, "error"));
  }, []);
  return (
    <section class="page">
      <h1 tabIndex={-1}>Mentions</h1>
      <ul class="mentions" aria-label="Mentions">
        {list?.map((m) => (
          <li key={m.id}>
            <a href={`#/inbox/${m.conversation_id}`}>{`${m.by?.email ?? "Someone"}: ${m.text}`}</a>
            <span class="muted small">{` · ${m.chat_id} · ${new Date(m.created_at).toLocaleString()}`}</span>
          </li>
        ))}
        {list && !list.length && <li class="muted">Nobody has mentioned you yet.</li>}
      </ul>
    </section>
  );
}
