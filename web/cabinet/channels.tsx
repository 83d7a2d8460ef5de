// The bot's eight channels: an on/off switch each, what it is for, and a form of its own
// (the widget's, the callback channels', the CMS forms'; the others have nothing to set).
import { useState } from "preact/hooks";
import { CALLBACK_CHANNELS, type ChannelType } from "../../src/core/records.ts";
import { patch, type Channel } from "./api.ts";
import { errorText, toast } from "./ui.tsx";
import { MailboxForm } from "./mailbox.tsx";

const LABELS: Record<ChannelType, string> = {
  web: "Web", website: "Website", widget: "Website widget", sitecms: "Site forms (CMS plugin)",
  crm: "CRM", email: "E-mail", mobile_app: "Mobile app", custom_api: "Custom API",
};
const labelOf = (type: string) => LABELS[type as ChannelType] ?? type;
/** What each channel is for: "web", "website" and "widget" read alike without it. */
const PURPOSES: Record<ChannelType, string> = {
  web: "Your own web chat: messages posted to /api/messages with channel \"web\".",
  website: "Your site's backend: messages posted to /api/messages with channel \"website\".",
  widget: "The chat bubble this server hosts: paste the snippet on your pages.",
  sitecms: "Contact forms from a CMS plugin, signed with the channel's secret.",
  crm: "Your CRM posts messages; replies are POSTed to its callback URL.",
  email: "A mailbox: mail in becomes messages, replies go out as mail.",
  mobile_app: "Your app posts messages; replies are POSTed to its callback URL.",
  custom_api: "Any other system posting to /api/messages; replies go to its callback URL.",
};

type Field = { key: string; label: string; kind: "text" | "textarea" | "color" | "position" | "lines" | "password" | "checkbox" };
const WIDGET_FIELDS: Field[] = [
  { key: "title", label: "Title", kind: "text" },
  { key: "subtitle", label: "Subtitle", kind: "text" },
  { key: "greeting", label: "Greeting", kind: "textarea" },
  { key: "color", label: "Color", kind: "color" },
  { key: "position", label: "Position", kind: "position" },
  { key: "allowed_origins", label: "Allowed origins (one per line, e.g. https://shop.example; empty = any site)", kind: "lines" },
];
/** Off by default (the API is public by specification); recommended wherever the sender is a server. */
const REQUIRE_SIGNATURE: Field = {
  key: "require_signature", kind: "checkbox",
  label: "Require signed requests (recommended): only your server, signing with the secret, can post to this channel",
};
const CALLBACK_FIELDS: Field[] = [
  { key: "callback_url", label: "Callback URL (outgoing messages are POSTed here)", kind: "text" },
  { key: "secret", label: "Signing secret", kind: "password" },
  REQUIRE_SIGNATURE,
];
const FORM_FIELDS: Field[] = [{ key: "secret", label: "Signing secret", kind: "password" }, REQUIRE_SIGNATURE];

export function ChannelsSection({ botId, channels }: { botId: string; channels: Channel[] }) {
  return <ul class="channels">{channels.map((c) => <ChannelRow key={c.channel_type} botId={botId} initial={c} />)}</ul>;
}

function ChannelRow({ botId, initial }: { botId: string; initial: Channel }) {
  const [channel, setChannel] = useState(initial);
  const [busy, setBusy] = useState(false);
  const [editing, setEditing] = useState(false);
  const label = labelOf(channel.channel_type);
  const editorId = `config-${channel.channel_type}`;
  const toggle = async () => {
    setBusy(true);
    try {
      const saved = await patch<Channel>(`/api/bots/${botId}/channels`, { channel_type: channel.channel_type, is_active: !channel.is_active });
      setChannel(saved);
      toast(`${label} ${saved.is_active ? "enabled" : "disabled"}`);
    } catch (err) {
      toast(errorText(err), "error");
    } finally {
      setBusy(false);
    }
  };
  return (
    <li class="channel">
      <div class="channel-row">
        <button type="button" role="switch" class="switch" aria-label={`${label} channel`} aria-checked={channel.is_active} disabled={busy} onClick={toggle}>
          <span class="knob" aria-hidden="true" />
        </button>
        <div class="channel-name">
          <strong>{label}</strong> <span class="muted small">{channel.is_active ? "On" : "Off"}</span>
          <span class="channel-purpose muted small">{PURPOSES[channel.channel_type as ChannelType] ?? ""}</span>
        </div>
        <code class="muted small">{channel.channel_type}</code>
        <button type="button" class="ghost small" aria-expanded={editing} aria-controls={editorId} onClick={() => setEditing(!editing)}>Configure</button>
      </div>
      <div class="channel-config" id={editorId} hidden={!editing}>
        {editing && <ConfigForm botId={botId} channel={channel} saved={setChannel} />}
        {editing && channel.channel_type === "email" && <MailboxForm botId={botId} channel={channel} saved={setChannel} />}
      </div>
    </li>
  );
}

const initialValue = (f: Field, value: unknown): string | boolean => {
  if (f.kind === "checkbox") return value === true;
  if (f.kind === "lines") return Array.isArray(value) ? value.join("\n") : "";
  if (f.kind === "position") return value === "left" ? "left" : "right";
  if (f.kind === "color") return typeof value === "string" ? value : "#2563eb";
  return typeof value === "string" ? value : "";
};

function ConfigForm({ botId, channel, saved }: { botId: string; channel: Channel; saved: (c: Channel) => void }) {
  const type = channel.channel_type;
  const fields = type === "widget" ? WIDGET_FIELDS : CALLBACK_CHANNELS.includes(type) ? CALLBACK_FIELDS : type === "sitecms" ? FORM_FIELDS : null;
  const config = channel.config as Record<string, unknown>;
  // The form's values as typed: what it shows and what it saves are the same state.
  const [values, setValues] = useState<Record<string, string | boolean>>(() =>
    fields ? Object.fromEntries(fields.map((f) => [f.key, initialValue(f, config[f.key])])) : {});
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const id = (key: string) => `${type}-${key}`;
  const text = (key: string) => String(values[key] ?? "");
  const set = (key: string) => (e: Event) => setValues({ ...values, [key]: (e.currentTarget as HTMLInputElement).value });

  const collect = (): Record<string, unknown> => {
    // The server merges what is sent: keys the form does not show are kept, a cleared one is sent as null (removed).
    const next: Record<string, unknown> = {};
    for (const f of fields ?? []) {
      const raw = text(f.key).trim();
      if (f.kind === "checkbox") next[f.key] = values[f.key] === true;
      else if (f.kind === "lines") {
        const lines = raw.split("\n").map((l) => l.trim()).filter(Boolean);
        next[f.key] = lines.length ? lines : null;
      } else next[f.key] = raw || null;
    }
    return next;
  };

  const submit = async (e: SubmitEvent) => {
    e.preventDefault();
    setError("");
    setBusy(true);
    try {
      saved(await patch<Channel>(`/api/bots/${botId}/channels`, { channel_type: type, config: collect() }));
      toast("Settings saved");
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };

  const control = (f: Field) => {
    const common = { id: id(f.key), value: text(f.key), onInput: set(f.key) };
    if (f.kind === "textarea") return <textarea rows={2} {...common} />;
    if (f.kind === "lines") return <textarea rows={3} {...common} />;
    if (f.kind === "position") {
      return <select {...common} onChange={set(f.key)}><option value="right">Bottom right</option><option value="left">Bottom left</option></select>;
    }
    if (f.kind === "color") return <input type="color" {...common} />;
    if (f.kind === "password") return <input type="password" autocomplete="off" {...common} />;
    return <input type="text" autocomplete="off" {...common} />;
  };

  return (
    <form class="config-form" aria-label={`${labelOf(type)} settings`} onSubmit={submit}>
      {fields
        ? fields.map((f) => f.kind === "checkbox"
          ? <div class="field check" key={f.key}>
              <input type="checkbox" id={id(f.key)} checked={values[f.key] === true}
                onChange={(e) => setValues({ ...values, [f.key]: e.currentTarget.checked })} />
              <label for={id(f.key)}>{f.label}</label>
            </div>
          : <div class="field" key={f.key}><label for={id(f.key)}>{f.label}</label>{control(f)}</div>)
        : <p class="muted small">Nothing to set: the switch turns this channel on or off.</p>}
      <p class="form-error" role="alert">{error}</p>
      {fields && <div class="actions"><button type="submit" class="primary small" disabled={busy}>Save</button></div>}
    </form>
  );
}
