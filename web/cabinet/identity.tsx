// The owner's identity secret for verified widget visitors: shown masked until asked for,
// copied, rotated; with the one line a site's server needs to sign its user's id.
import { useEffect, useState } from "preact/hooks";
import { get, post } from "./api.ts";
import { CopyButton, errorText, toast } from "./ui.tsx";

interface IdentitySecret {
  identity_secret: string;
  rotated_at: string;
}

const SIGNING_EXAMPLE = `// On your server (Node.js), for the logged-in user:
const hash = require("node:crypto").createHmac("sha256", IDENTITY_SECRET).update(user.id).digest("hex");
// In the page: data-user-id="<user.id>" data-user-hash="<hash>" on the widget's script tag`;

export function IdentitySecretRow({ botId }: { botId: string }) {
  const [secret, setSecret] = useState<IdentitySecret | null>(null);
  const [revealed, setRevealed] = useState(false);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    get<IdentitySecret>(`/api/bots/${botId}/identity-secret`).then(setSecret, (err) => toast(errorText(err), "error"));
  }, [botId]);
  const rotate = async () => {
    if (!confirm("Rotate the identity secret? Every user hash signed with the current one is refused from now on.")) return;
    setBusy(true);
    try {
      setSecret(await post<IdentitySecret>(`/api/bots/${botId}/identity-secret/rotate`));
      toast("New identity secret; sign your users' ids with it");
    } catch (err) {
      toast(errorText(err), "error");
    } finally {
      setBusy(false);
    }
  };
  const value = secret?.identity_secret ?? "";
  return (
    <>
      <h3 id="identity-title">Verified visitors</h3>
      <p class="muted small">
        Logged-in users keep one conversation on every device when your server signs their id with this secret. Never put the secret in a page.
      </p>
      <div class="kv">
        {/* Worded apart from the bot token's row above (Show, Rotate): one name, one button. */}
        <code class="identity-secret">{revealed ? value : "•".repeat(24)}</code>
        <button type="button" class="ghost small" onClick={() => setRevealed(!revealed)}>{revealed ? "Conceal" : "Reveal"}</button>
        <CopyButton label="Copy" text={() => value} name="Copy identity secret" />
        <button type="button" class="danger small" disabled={busy || !secret} onClick={rotate}>New secret</button>
      </div>
      <pre class="snippet" aria-label="Signing example"><code>{SIGNING_EXAMPLE}</code></pre>
    </>
  );
}
