// The bot card. The owner: name (rename, delete), token (copy, rotate), keys, the embed
// snippet, webhook status, channels, team and invites. Every member: canned replies.
import { LabelsSection } from "./labels.tsx";
import { useEffect, useRef, useState } from "preact/hooks";
import { del, get, patch, post, type Bot, type Channel, type WebhookInfo } from "./api.ts";
import { CannedSection } from "./canned.tsx";
import { ChannelsSection } from "./channels.tsx";
import { FirstRunChecklist } from "./checklist.tsx";
import { MembersSection } from "./members.tsx";
import { EventWebhooksSection } from "./integrations.tsx";
import { HoursSection, RoutingSection } from "./workflow.tsx";
import { IdentitySecretRow } from "./identity.tsx";
import { CopyButton, errorText, formatTime, toast, useLatest, useTitle } from "./ui.tsx";

/** The bot-token secret is shown masked until asked for. */
const MASK = "•".repeat(24);

function embedSnippet(base: string, widgetKey: string): string {
  return `<script src="${base}/widget.js" data-widget-key="${widgetKey}" data-api-url="${base}" async></script>`;
}

const isOwner = (bot: Bot) => (bot.role ? bot.role === "owner" : Boolean(bot.token));

type Loaded = { bot: Bot; channels: Channel[] | null };

export function BotCardView({ id, publicUrl }: { id: string; publicUrl: string }) {
  const [loaded, setLoaded] = useState<Loaded | undefined>();
  const [error, setError] = useState("");
  const latest = useLatest();
  useEffect(() => {
    void latest.run(async () => {
      const bot = await get<Bot>(`/api/bots/${id}`);
      // Only the owner may see channels (and the token, keys and team).
      const channels = isOwner(bot) ? await get<Channel[]>(`/api/bots/${id}/channels`) : null;
      return { bot, channels };
    }).then((result) => result && setLoaded(result), (err) => setError(errorText(err)));
  }, [id]);
  const setBot = (bot: Bot) => setLoaded((l) => l && { ...l, bot });
  useTitle(loaded && `${loaded.bot.name} · botinbox`);

  if (error) {
    return <section class="page"><p class="form-error" role="alert">{error}</p><a href="#/bots">← All bots</a></section>;
  }
  if (!loaded) return <section class="page" aria-busy="true"><p class="muted">Loading…</p></section>;
  const { bot, channels } = loaded;
  if (!channels) {
    return (
      <section class="page">
        <a href="#/bots" class="back">← All bots</a>
        <Head bot={bot} owner={false} />
        <p class="muted">The bot's owner manages its token, channels and team. You work its conversations in the <a href="#/inbox">inbox</a>.</p>
        <section class="card" aria-labelledby="canned-title">
          <h2 id="canned-title">Canned replies</h2>
          <CannedSection botId={bot.id} />
        </section>
        <LabelsSection botId={bot.id} owner={false} />
      </section>
    );
  }
  const snippet = embedSnippet(publicUrl, bot.widget_key);
  return (
    <section class="page">
      <a href="#/bots" class="back">← All bots</a>
      <Head bot={bot} owner onRenamed={setBot} />
      <div class="grid">
        <FirstRunChecklist botId={bot.id} token={bot.token ?? ""} />
        <section class="card" aria-labelledby="token-title">
          <h2 id="token-title">API token</h2>
          <p class="muted small">For the bot's backend: Authorization: Bearer &lt;token&gt;, or Telegram libraries pointed at this server.</p>
          <TokenRow bot={bot} rotated={setBot} />
          <h3 id="webhook-title">Updates delivery</h3>
          <WebhookState botId={bot.id} token={bot.token ?? ""} />
        </section>
        <section class="card" aria-labelledby="keys-title">
          <h2 id="keys-title">Keys</h2>
          <KeyRow label="Bot id" value={bot.id} />
          <KeyRow label="Widget key" value={bot.widget_key} />
          <KeyRow label="Integration key" value={bot.integration_key ?? ""} />
        </section>
        <section class="card span-2" aria-labelledby="embed-title">
          <h2 id="embed-title">Website widget</h2>
          <p class="muted small">Paste this before &lt;/body&gt; on every page where visitors should be able to chat.</p>
          <pre class="snippet" aria-label="Embed snippet"><code>{snippet}</code></pre>
          <CopyButton label="Copy snippet" text={() => snippet} />
          <IdentitySecretRow botId={bot.id} />
        </section>
        <section class="card span-2" aria-labelledby="channels-title">
          <h2 id="channels-title">Channels</h2>
          <ChannelsSection botId={bot.id} channels={channels} />
        </section>
        <section class="card" aria-labelledby="team-title">
          <h2 id="team-title">Team</h2>
          <MembersSection botId={bot.id} />
        </section>
        <section class="card" aria-labelledby="routing-title">
          <h2 id="routing-title">Routing</h2>
          <RoutingSection botId={bot.id} />
        </section>
        <section class="card" aria-labelledby="hours-title">
          <h2 id="hours-title">Working hours</h2>
          <HoursSection botId={bot.id} />
        </section>
        <section class="card span-2" aria-labelledby="integrations-title">
          <h2 id="integrations-title">Integrations</h2>
          <EventWebhooksSection botId={bot.id} />
        </section>
        <section class="card" aria-labelledby="canned-title">
          <h2 id="canned-title">Canned replies</h2>
          <CannedSection botId={bot.id} />
        </section>
        <LabelsSection botId={bot.id} owner />
        <DangerZone bot={bot} />
      </div>
    </section>
  );
}

function Head({ bot, owner, onRenamed }: { bot: Bot; owner: boolean; onRenamed?: (bot: Bot) => void }) {
  return (
    <div class="page-head">
      <span class="avatar big" aria-hidden="true">{bot.name.slice(0, 1).toUpperCase()}</span>
      <div class="grow">
        {owner && onRenamed ? <NameHeading bot={bot} renamed={onRenamed} /> : <h1 tabIndex={-1}>{bot.name}</h1>}
        <p class="muted">{`@${bot.username} · bot #${bot.number}${bot.description ? ` · ${bot.description}` : ""}${owner ? "" : " · you are an operator"}`}</p>
      </div>
    </div>
  );
}

/** The name as a heading, with a rename form behind a button. */
function NameHeading({ bot, renamed }: { bot: Bot; renamed: (bot: Bot) => void }) {
  const [editing, setEditing] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (editing) input.current?.focus();
  }, [editing]);
  const submit = async (e: SubmitEvent) => {
    e.preventDefault();
    try {
      const result = await patch<Bot>(`/api/bots/${bot.id}`, { name: input.current!.value.trim() });
      renamed({ ...bot, name: result.name });
      toast("Renamed");
      setEditing(false);
    } catch (err) {
      toast(errorText(err), "error");
    }
  };
  return (
    <div>
      <div class="name-line" hidden={editing}>
        <h1 tabIndex={-1}>{bot.name}</h1>
        <button type="button" class="ghost small" onClick={() => setEditing(true)}>Rename</button>
      </div>
      <form class="rename" hidden={!editing} onSubmit={submit}>
        <input ref={input} id="bot-rename" required maxLength={64} defaultValue={bot.name} aria-label="Bot name" />
        <button type="submit" class="primary small">Save</button>
        <button type="button" class="ghost small" onClick={() => setEditing(false)}>Cancel</button>
      </form>
    </div>
  );
}

function TokenRow({ bot, rotated }: { bot: Bot; rotated: (bot: Bot) => void }) {
  const [revealed, setRevealed] = useState(false);
  const [busy, setBusy] = useState(false);
  const token = bot.token ?? "";
  const rotate = async () => {
    if (!confirm("Rotate the token? The current token stops working immediately.")) return;
    setBusy(true);
    try {
      rotated(await post<Bot>(`/api/bots/${bot.id}/token`));
      toast("New token issued; the old one no longer works");
    } catch (err) {
      toast(errorText(err), "error");
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="kv">
      <code class="secret">{revealed ? token : `${token.split(":")[0]}:${MASK}`}</code>
      <button type="button" class="ghost small" onClick={() => setRevealed(!revealed)}>{revealed ? "Hide" : "Show"}</button>
      <CopyButton label="Copy" text={() => token} name="Copy token" />
      <button type="button" class="danger small" disabled={busy} onClick={rotate}>Rotate</button>
    </div>
  );
}

/** Webhook or polling; asked again when the token changes (a rotation drops the webhook's secret). */
function WebhookState({ botId, token }: { botId: string; token: string }) {
  const [info, setInfo] = useState<WebhookInfo | null | undefined>();
  const latest = useLatest();
  useEffect(() => {
    // The webhook API may be missing or refuse: polling is what a bot without a webhook does.
    latest.run(() => get<WebhookInfo>(`/api/bots/${botId}/get-webhook-info`, token))
      .then((result) => result && setInfo(result), () => setInfo(null));
  }, [botId, token]);
  return (
    <div class="webhook" aria-live="polite" aria-labelledby="webhook-title">
      {info === undefined ? <span class="muted">Checking…</span>
        : info === null ? <><span class="pill">Polling</span> <span class="muted">Webhook status unavailable; the bot reads updates with get-updates.</span></>
        : info.url ? (
          <>
            <span class="pill ok">Webhook</span> <code>{info.url}</code>
            <p class="muted small">{`${info.pending_update_count ?? 0} pending update(s)`}</p>
            {info.last_error_message && (
              <p class="form-error small">{`Last error${info.last_error_date ? ` (${formatTime(new Date(info.last_error_date * 1000).toISOString())})` : ""}: ${info.last_error_message}`}</p>
            )}
          </>
        ) : <><span class="pill">Polling</span> <span class="muted">No webhook set: the bot reads updates with get-updates.</span></>}
    </div>
  );
}

function KeyRow({ label, value }: { label: string; value: string }) {
  return (
    <div class="kv">
      <span class="kv-label">{label}</span><code>{value}</code>
      <CopyButton label="Copy" text={() => value} name={`Copy ${label.toLowerCase()}`} />
    </div>
  );
}

function DangerZone({ bot }: { bot: Bot }) {
  const [busy, setBusy] = useState(false);
  const remove = async () => {
    if (!confirm(`Delete ${bot.name}? Its conversations, contacts, channels and team are removed for good. This cannot be undone.`)) return;
    setBusy(true);
    try {
      await del(`/api/bots/${bot.id}`);
      toast(`${bot.name} deleted`);
      location.hash = "#/bots";
    } catch (err) {
      toast(errorText(err), "error");
      setBusy(false);
    }
  };
  return (
    <section class="card span-2 danger-zone" aria-labelledby="danger-title">
      <h2 id="danger-title">Delete this bot</h2>
      <p class="muted small">Removes the bot with all its conversations and data, for every member.</p>
      <button type="button" class="danger" disabled={busy} onClick={remove}>Delete bot</button>
    </section>
  );
}
