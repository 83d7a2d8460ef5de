// The bots list and the create form.
import { useEffect, useRef, useState } from "preact/hooks";
import { get, post, type Bot } from "./api.ts";
import { errorText, formatTime, toast, useLatest, useTitle } from "./ui.tsx";

export function BotsView() {
  useTitle("Bots · botinbox");
  const [bots, setBots] = useState<Bot[] | undefined>();
  const [loadError, setLoadError] = useState("");
  const latest = useLatest();
  useEffect(() => {
    latest.run(() => get<Bot[]>("/api/bots")).then((list) => list && setBots(list), (err) => setLoadError(errorText(err)));
  }, []);

  return (
    <section class="page">
      <div class="page-head"><h1 tabIndex={-1}>Bots</h1></div>
      <CreateBot />
      <ul class="bot-list" aria-label="Your bots" aria-busy={bots || loadError ? undefined : "true"}>
        {loadError ? <li class="form-error">{loadError}</li>
          : bots?.length === 0 ? <li class="empty">No bots yet. Create your first one above.</li>
          : bots?.map((bot) => (
            <li key={bot.id}>
              <a class="card bot-item" href={`#/bots/${bot.id}`}>
                <span class="avatar" aria-hidden="true">{bot.name.slice(0, 1).toUpperCase()}</span>
                <span class="bot-item-text"><strong>{bot.name}</strong><span class="muted">{`@${bot.username}`}</span></span>
                {bot.role === "operator" && <span class="pill">operator</span>}
                <span class="muted small">{`Created ${formatTime(bot.created_at)}`}</span>
              </a>
            </li>
          ))}
      </ul>
    </section>
  );
}

function CreateBot() {
  const name = useRef<HTMLInputElement>(null);
  const description = useRef<HTMLInputElement>(null);
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const submit = async (e: SubmitEvent) => {
    e.preventDefault();
    setError("");
    setBusy(true);
    try {
      const bot = await post<Bot>("/api/bots", { name: name.current!.value.trim(), description: description.current!.value.trim() || undefined });
      toast(`${bot.name} is ready`);
      location.hash = `#/bots/${bot.id}`;
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="card create-bot" aria-labelledby="create-title" onSubmit={submit}>
      <h2 id="create-title">New bot</h2>
      <div class="row">
        <div class="field"><label for="bot-name">Name</label>
          <input ref={name} name="name" id="bot-name" required maxLength={64} placeholder="Support bot" /></div>
        <div class="field grow"><label for="bot-description">Description</label>
          <input ref={description} name="description" id="bot-description" maxLength={512} placeholder="Optional" /></div>
        <button type="submit" class="primary" disabled={busy}>Create bot</button>
      </div>
      <p class="form-error" role="alert">{error}</p>
    </form>
  );
}
