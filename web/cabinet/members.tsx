// The bot's team (owner only): members with their role, removal, and invites. An invite's
// link and code are shown once, right after it is made: the server keeps only a hash.
import { useEffect, useRef, useState } from "preact/hooks";
import { del, get, post, type CreatedInvite, type Invite, type Member } from "./api.ts";
import { CopyButton, errorText, formatTime, toast, useLatest } from "./ui.tsx";
import { notePresence, PresenceDot } from "./presence.tsx";

export function MembersSection({ botId }: { botId: string }) {
  const [team, setTeam] = useState<{ members: Member[]; invites: Invite[] } | undefined>();
  const [loadError, setLoadError] = useState("");
  const [created, setCreated] = useState<CreatedInvite | undefined>();
  const [error, setError] = useState("");
  const email = useRef<HTMLInputElement>(null);
  const latest = useLatest();

  const load = () => void latest.run(async () => {
    const [members, invites] = await Promise.all([
      get<Member[]>(`/api/bots/${botId}/members`),
      get<Invite[]>(`/api/bots/${botId}/invites`),
    ]);
    return { members, invites };
  }).then((result) => {
    if (!result) return;
    for (const m of result.members) notePresence(m.user_id, m.presence);
    setTeam(result);
    setLoadError("");
  }, (err) => setLoadError(errorText(err)));
  useEffect(load, [botId]);

  /** A removal or revocation, then the lists again. */
  const act = async (run: () => Promise<unknown>) => {
    try {
      await run();
      load();
    } catch (err) {
      toast(errorText(err), "error");
    }
  };
  const remove = (m: Member) => act(async () => {
    if (!confirm(`Remove ${m.email} from this bot? They lose access to its inbox at once.`)) return;
    await del(`/api/bots/${botId}/members/${m.user_id}`);
    toast(`${m.email} removed`);
  });

  const invite = async (e: SubmitEvent) => {
    e.preventDefault();
    setError("");
    try {
      const result = await post<CreatedInvite>(`/api/bots/${botId}/invites`, { email: email.current!.value.trim(), role: "operator" });
      email.current!.value = "";
      setCreated(result);
      load();
    } catch (err) {
      setError(errorText(err));
    }
  };
  const link = created && (created.invite_url ?? `${location.origin}/#invite=${created.code}`);

  return (
    <div>
      <ul class="rows" aria-label="Members">
        {loadError ? <li class="form-error">{loadError}</li> : team?.members.map((m) => (
          <li class="row-item" key={m.user_id}>
            <PresenceDot userId={m.user_id} email={m.email} />
            <span class="grow clip">{m.email}</span>
            <span class="pill">{m.role}</span>
            {m.role !== "owner" && <button type="button" class="danger small" aria-label={`Remove ${m.email}`} onClick={() => remove(m)}>Remove</button>}
          </li>
        ))}
      </ul>
      <h3>Invites</h3>
      <form class="invite-form" onSubmit={invite}>
        <div class="row">
          <div class="field grow"><label for="invite-email">Invite an operator by e-mail</label>
            <input ref={email} type="email" id="invite-email" required placeholder="colleague@example.com" autocomplete="off" /></div>
          <button type="submit" class="primary">Create invite</button>
        </div>
        <p class="form-error" role="alert">{error}</p>
      </form>
      <div class="invite-created" aria-live="polite">
        {created && link && (
          <>
            <p>{`Send this link to ${created.email}. It works once, for that e-mail address, until ${formatTime(created.expires_at)}; it is not shown again.`}</p>
            <div class="kv"><code class="invite-link">{link}</code><CopyButton label="Copy link" text={() => link} name="Copy invite link" /></div>
            <div class="kv"><span class="kv-label">Or the code</span><code class="invite-code">{created.code}</code>
              <CopyButton label="Copy" text={() => created.code} name="Copy invite code" /></div>
          </>
        )}
      </div>
      <ul class="rows" aria-label="Pending invites">
        {team && (team.invites.length
          ? team.invites.map((i) => (
            <li class="row-item" key={i.id}>
              <span class="grow clip">{i.email}</span>
              <span class="muted small">{`expires ${formatTime(i.expires_at)}`}</span>
              <button type="button" class="danger small" aria-label={`Revoke the invite for ${i.email}`}
                onClick={() => act(() => del(`/api/bots/${botId}/invites/${i.id}`))}>Revoke</button>
            </li>
          ))
          : <li class="muted small">No pending invites.</li>)}
      </ul>
    </div>
  );
}
