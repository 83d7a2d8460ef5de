// Integrations: a bot's event webhooks with their delivery log (owner), and the user's
// personal API tokens (Account). Secrets and tokens are shown once, right after creation:
// the server keeps the secret sealed and only a hash of the token.
import { useEffect, useRef, useState } from "preact/hooks";
import { del, get, post } from "./api.ts";
import { CopyButton, errorText, formatTime, toast, useLatest } from "./ui.tsx";

const EVENTS = ["conversation_created", "conversation_updated", "message_created", "contact_updated"] as const;
const SCOPES = ["inbox:read", "inbox:write", "bots:admin"] as const;

interface EventHook { id: string; url: string; events: string[]; created_at: string }
interface EventDelivery {
  id: string; event: string; event_id: string; state: "pending" | "delivered" | "failed"; attempts: number;
  response_code: number | null; last_error: string | null; created_at: string; last_attempt_at: string | null;
}
interface ApiToken { id: string; name: string; scopes: string[]; expires_at: string | null; last_used_at: string | null; created_at: string }

function DeliveryLog({ botId, hook }: { botId: string; hook: EventHook }) {
  const [rows, setRows] = useState<EventDelivery[] | undefined>();
  const [error, setError] = useState("");
  const load = () => void get<EventDelivery[]>(`/api/bots/${botId}/event-webhooks/${hook.id}/deliveries?limit=50`)
    .then((r) => (setRows(r), setError("")), (err) => setError(errorText(err)));
  useEffect(load, [hook.id]);
  const redeliver = async (d: EventDelivery) => {
    try {
      await post(`/api/bots/${botId}/event-webhooks/${hook.id}/deliveries/${d.id}/redeliver`);
      toast("Queued again");
      load();
    } catch (err) {
      toast(errorText(err), "error");
    }
  };
  if (error) return <p class="form-error">{error}</p>;
  if (!rows) return <p class="muted small">Loading…</p>;
  return (
    <ul class="rows" aria-label={`Deliveries to ${hook.url}`}>
      {rows.length === 0 && <li class="muted small">Nothing sent yet.</li>}
      {rows.map((d) => (
        <li class="row-item" key={d.id}>
          <span class="grow clip">{`${d.event} · ${formatTime(d.created_at)}`}</span>
          <span class="pill">{d.state}</span>
          <span class="muted small">{`${d.attempts} attempt${d.attempts === 1 ? "" : "s"}${d.response_code ? ` · HTTP ${d.response_code}` : ""}${d.last_error ? ` · ${d.last_error}` : ""}`}</span>
          <button type="button" class="small" aria-label={`Redeliver ${d.event} of ${formatTime(d.created_at)}`} onClick={() => redeliver(d)}>Redeliver</button>
        </li>
      ))}
    </ul>
  );
}

export function EventWebhooksSection({ botId }: { botId: string }) {
  const [hooks, setHooks] = useState<EventHook[] | undefined>();
  const [open, setOpen] = useState<string | undefined>();
  const [created, setCreated] = useState<(EventHook & { secret: string }) | undefined>();
  const [error, setError] = useState("");
  const url = useRef<HTMLInputElement>(null);
  const [events, setEvents] = useState<string[]>([...EVENTS]);
  const latest = useLatest();
  const load = () => void latest.run(() => get<EventHook[]>(`/api/bots/${botId}/event-webhooks`))
    .then((r) => r && setHooks(r), (err) => setError(errorText(err)));
  useEffect(load, [botId]);

  const add = async (e: SubmitEvent) => {
    e.preventDefault();
    setError("");
    try {
      const hook = await post<EventHook & { secret: string }>(`/api/bots/${botId}/event-webhooks`, { url: url.current!.value.trim(), events });
      url.current!.value = "";
      setCreated(hook);
      load();
    } catch (err) {
      setError(errorText(err));
    }
  };
  const remove = async (hook: EventHook) => {
    if (!confirm(`Stop sending events to ${hook.url}?`)) return;
    try {
      await del(`/api/bots/${botId}/event-webhooks/${hook.id}`);
      load();
    } catch (err) {
      toast(errorText(err), "error");
    }
  };
  const toggle = (name: string) => setEvents((now) => now.includes(name) ? now.filter((e) => e !== name) : [...now, name]);

  return (
    <div>
      <p class="muted small">Conversation, message and contact events are POSTed to your URL, signed with X-Botinbox-Signature (see the README). Private notes are never sent.</p>
      <form onSubmit={add}>
        <div class="field"><label for="event-hook-url">Endpoint URL</label>
          <input ref={url} type="url" id="event-hook-url" required placeholder="https://crm.example.com/botinbox" autocomplete="off" /></div>
        <fieldset class="field"><legend>Events</legend>
          {EVENTS.map((name) => (
            <label key={name} class="check"><input type="checkbox" checked={events.includes(name)} onChange={() => toggle(name)} /> {name}</label>
          ))}
        </fieldset>
        <p class="form-error" role="alert">{error}</p>
        <button type="submit" class="primary" disabled={events.length === 0}>Add event webhook</button>
      </form>
      <div aria-live="polite">
        {created && (
          <div class="kv"><span class="kv-label">Signing secret (shown once)</span><code class="hook-secret">{created.secret}</code>
            <CopyButton label="Copy" text={() => created.secret} name="Copy signing secret" /></div>
        )}
      </div>
      <ul class="rows" aria-label="Event webhooks">
        {hooks && hooks.length === 0 && <li class="muted small">No event webhooks.</li>}
        {hooks?.map((hook) => (
          <li key={hook.id}>
            <div class="row-item">
              <span class="grow clip">{hook.url}</span>
              <span class="muted small">{hook.events.join(", ")}</span>
              <button type="button" class="small" aria-expanded={open === hook.id} onClick={() => setOpen(open === hook.id ? undefined : hook.id)}>Deliveries</button>
              <button type="button" class="danger small" aria-label={`Remove ${hook.url}`} onClick={() => remove(hook)}>Remove</button>
            </div>
            {open === hook.id && <DeliveryLog botId={botId} hook={hook} />}
          </li>
        ))}
      </ul>
    </div>
  );
}

export function ApiTokensSection() {
  const [tokens, setTokens] = useState<ApiToken[] | undefined>();
  const [created, setCreated] = useState<string | undefined>();
  const [error, setError] = useState("");
  const [scopes, setScopes] = useState<string[]>(["inbox:read"]);
  const name = useRef<HTMLInputElement>(null);
  const expires = useRef<HTMLInputElement>(null);
  const load = () => void get<ApiToken[]>("/api/me/tokens").then(setTokens, (err) => setError(errorText(err)));
  useEffect(load, []);

  const create = async (e: SubmitEvent) => {
    e.preventDefault();
    setError("");
    try {
      const day = expires.current!.value;
      const body: Record<string, unknown> = { name: name.current!.value.trim(), scopes };
      if (day) body.expires_at = new Date(`${day}T23:59:59`).toISOString();
      const result = await post<ApiToken & { token: string }>("/api/me/tokens", body);
      name.current!.value = "";
      expires.current!.value = "";
      setCreated(result.token);
      load();
    } catch (err) {
      setError(errorText(err));
    }
  };
  const revoke = async (t: ApiToken) => {
    if (!confirm(`Revoke "${t.name}"? Scripts using it stop working at once.`)) return;
    try {
      await del(`/api/me/tokens/${t.id}`);
      toast(`${t.name} revoked`);
      load();
    } catch (err) {
      toast(errorText(err), "error");
    }
  };
  const toggle = (scope: string) => setScopes((now) => now.includes(scope) ? now.filter((s) => s !== scope) : [...now, scope]);

  return (
    <section class="card narrow-card" aria-labelledby="tokens-title">
      <h2 id="tokens-title">API tokens</h2>
      <p class="muted small">For scripts and integrations: send as Authorization: Bearer. A token can do only what its scopes allow.</p>
      <form onSubmit={create}>
        <div class="field"><label for="token-name">Name</label>
          <input ref={name} id="token-name" required maxLength={100} placeholder="CRM sync" autocomplete="off" /></div>
        <fieldset class="field"><legend>Scopes</legend>
          {SCOPES.map((scope) => (
            <label key={scope} class="check"><input type="checkbox" checked={scopes.includes(scope)} onChange={() => toggle(scope)} /> {scope}</label>
          ))}
        </fieldset>
        <div class="field"><label for="token-expires">Expires (optional)</label><input ref={expires} type="date" id="token-expires" /></div>
        <p class="form-error" role="alert">{error}</p>
        <button type="submit" class="primary" disabled={scopes.length === 0}>Create token</button>
      </form>
      <div aria-live="polite">
        {created && (
          <div class="kv"><span class="kv-label">Your token (shown once)</span><code class="api-token">{created}</code>
            <CopyButton label="Copy" text={() => created} name="Copy API token" /></div>
        )}
      </div>
      <ul class="rows" aria-label="API tokens">
        {tokens && tokens.length === 0 && <li class="muted small">No API tokens.</li>}
        {tokens?.map((t) => (
          <li class="row-item" key={t.id}>
            <span class="grow clip">{t.name}</span>
            <span class="muted small">{`${t.scopes.join(", ")} · ${t.last_used_at ? `last used ${formatTime(t.last_used_at)}` : "never used"}${t.expires_at ? ` · expires ${formatTime(t.expires_at)}` : ""}`}</span>
            <button type="button" class="danger small" aria-label={`Revoke ${t.name}`} onClick={() => revoke(t)}>Revoke</button>
          </li>
        ))}
      </ul>
    </section>
  );
}
