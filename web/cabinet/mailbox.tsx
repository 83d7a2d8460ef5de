// The e-mail channel's mailbox: IMAP (incoming) and SMTP (outgoing) settings, and "Test
// connection", which says in plain words what failed. Passwords are write-only: an empty
// password field keeps the stored one.
import { useState } from "preact/hooks";
import { patch, post, type Channel } from "./api.ts";
import { errorText, toast } from "./ui.tsx";

interface Check { ok: boolean; error?: string }
type Values = Record<string, string>;

const obj = (v: unknown): Record<string, unknown> => (typeof v === "object" && v !== null ? (v as Record<string, unknown>) : {});
const str = (v: unknown, fallback = "") => (v === undefined || v === null ? fallback : String(v));
const passwordLabel = (set: unknown) => (set ? "Password (stored; leave empty to keep it)" : "Password (an app password)");

function initial(channel: Channel): Values {
  const imap = obj(channel.config.imap);
  const smtp = obj(channel.config.smtp);
  return {
    "imap-host": str(imap.host, "imap.gmail.com"), "imap-port": str(imap.port, "993"), "imap-tls": imap.tls === false ? "false" : "true",
    "imap-user": str(imap.user), "imap-password": "", "imap-mailbox": str(imap.mailbox, "INBOX"),
    "smtp-host": str(smtp.host, "smtp.gmail.com"), "smtp-port": str(smtp.port, "465"), "smtp-tls": str(smtp.tls, "implicit"),
    "smtp-user": str(smtp.user), "smtp-password": "", "smtp-from": str(smtp.from_address), "smtp-name": str(smtp.from_name),
  };
}

export function MailboxForm({ botId, channel, saved }: { botId: string; channel: Channel; saved: (c: Channel) => void }) {
  const [values, setValues] = useState(() => initial(channel));
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const [results, setResults] = useState<Array<{ text: string; ok: boolean }>>([]);
  const v = (key: string) => values[key]!.trim();
  const set = (key: string) => (e: Event) => setValues({ ...values, [key]: (e.currentTarget as HTMLInputElement).value });
  const imap = obj(channel.config.imap);
  const smtp = obj(channel.config.smtp);

  const collect = () => {
    const nextImap: Record<string, unknown> = { host: v("imap-host"), port: Number(v("imap-port")), tls: v("imap-tls") === "true", user: v("imap-user") };
    if (v("imap-mailbox")) nextImap.mailbox = v("imap-mailbox");
    if (v("imap-password")) nextImap.password = v("imap-password");
    const nextSmtp: Record<string, unknown> = { host: v("smtp-host"), port: Number(v("smtp-port")), tls: v("smtp-tls"), from_address: v("smtp-from") };
    if (v("smtp-name")) nextSmtp.from_name = v("smtp-name");
    if (v("smtp-user")) nextSmtp.user = v("smtp-user");
    if (v("smtp-password")) nextSmtp.password = v("smtp-password");
    return { imap: nextImap, smtp: nextSmtp };
  };

  const submit = async (e: SubmitEvent) => {
    e.preventDefault();
    setError("");
    setBusy(true);
    try {
      saved(await patch<Channel>(`/api/bots/${botId}/channels`, { channel_type: "email", config: collect() }));
      setValues({ ...values, "imap-password": "", "smtp-password": "" });
      toast("Mailbox saved; test the connection");
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };

  const test = async () => {
    setBusy(true);
    setResults([{ text: "Testing…", ok: true }]);
    try {
      const r = await post<{ imap: Check; smtp: Check }>(`/api/bots/${botId}/channels/email/test`);
      const line = (name: string, c: Check) => ({ text: `${name}: ${c.ok ? "connected and logged in" : c.error}`, ok: c.ok });
      setResults([line("Incoming (IMAP)", r.imap), line("Outgoing (SMTP)", r.smtp)]);
    } catch (err) {
      setResults([{ text: errorText(err), ok: false }]);
    } finally {
      setBusy(false);
    }
  };

  const field = (key: string, label: string, type: "text" | "number" | "password" = "text") => {
    const common = { id: `mail-${key}`, autocomplete: "off", value: values[key], onInput: set(key) };
    return (
      <div class="field"><label for={`mail-${key}`}>{label}</label>
        {type === "password" ? <input type="password" {...common} /> : type === "number" ? <input type="number" {...common} /> : <input type="text" {...common} />}</div>
    );
  };
  const select = (key: string, label: string, options: Array<[string, string]>) => (
    <div class="field"><label for={`mail-${key}`}>{label}</label>
      <select id={`mail-${key}`} value={values[key]} onChange={set(key)}>{options.map(([value, text]) => <option key={value} value={value}>{text}</option>)}</select></div>
  );

  return (
    <form class="config-form" aria-label="Mailbox settings" onSubmit={submit}>
      <h4>Incoming mail (IMAP)</h4>
      {field("imap-host", "Server")}
      {field("imap-port", "Port", "number")}
      {select("imap-tls", "Security", [["true", "TLS (port 993)"], ["false", "Plain / STARTTLS (port 143)"]])}
      {field("imap-user", "User")}
      {field("imap-password", passwordLabel(imap.password_set), "password")}
      {field("imap-mailbox", "Folder")}
      <h4>Outgoing mail (SMTP)</h4>
      {field("smtp-host", "Server")}
      {field("smtp-port", "Port", "number")}
      {select("smtp-tls", "Security", [["implicit", "TLS (port 465)"], ["starttls", "STARTTLS (port 587)"], ["none", "None"]])}
      {field("smtp-user", "User (empty: no login)")}
      {field("smtp-password", passwordLabel(smtp.password_set), "password")}
      {field("smtp-from", "From address")}
      {field("smtp-name", "From name")}
      <p class="form-error" role="alert">{error}</p>
      <div class="actions">
        <button type="submit" class="primary small" disabled={busy}>Save mailbox</button>
        <button type="button" class="ghost small" disabled={busy} onClick={test}>Test connection</button>
      </div>
      <ul class="mail-test" aria-live="polite">{results.map((r, i) => <li key={i} class={r.ok ? "ok" : "form-error"}>{r.text}</li>)}</ul>
    </form>
  );
}
