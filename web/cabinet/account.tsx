// The account page (change the password) and the invite page (#invite=<code>): joining a
// bot's team with the invite the owner sent.
import { useRef, useState } from "preact/hooks";
import { ApiError, post, session, type AcceptedInvite, type AuthResult } from "./api.ts";
import { MIN_PASSWORD } from "./auth.tsx";
import { ApiTokensSection } from "./integrations.tsx";
import { errorText, toast, useTitle } from "./ui.tsx";

export function AccountView({ logout }: { logout: () => void }) {
  useTitle("Account · botinbox");
  const current = useRef<HTMLInputElement>(null);
  const next = useRef<HTMLInputElement>(null);
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);

  const submit = async (e: SubmitEvent) => {
    e.preventDefault();
    setError("");
    if (next.current!.value.length < MIN_PASSWORD) {
      setError(`The new password needs at least ${MIN_PASSWORD} characters.`);
      return next.current!.focus();
    }
    setBusy(true);
    try {
      // Every earlier token stops working, this tab's too: the answer brings the new one.
      const result = await post<AuthResult>("/api/auth/password", { current_password: current.current!.value, new_password: next.current!.value });
      session.start(result.token, result.user.email);
      current.current!.value = "";
      next.current!.value = "";
      toast("Password changed");
    } catch (err) {
      setError(err instanceof ApiError && err.status === 400 ? "The current password is not right." : errorText(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="page">
      <div class="page-head">
        <div class="grow"><h1 tabIndex={-1}>Account</h1><p class="muted">{session.email}</p></div>
        <button type="button" class="ghost" onClick={logout}>Log out</button>
      </div>
      <form class="card narrow-card" aria-labelledby="password-title" onSubmit={submit}>
        <h2 id="password-title">Change password</h2>
        <div class="field"><label for="current-password">Current password</label>
          <input ref={current} type="password" id="current-password" required autocomplete="current-password" /></div>
        <div class="field"><label for="new-password">New password</label>
          <input ref={next} type="password" id="new-password" required minLength={MIN_PASSWORD} autocomplete="new-password" /></div>
        <p class="hint">At least {MIN_PASSWORD} characters.</p>
        <p class="form-error" role="alert">{error}</p>
        <button type="submit" class="primary" disabled={busy}>Change password</button>
      </form>
      <ApiTokensSection />
      <section class="card narrow-card" aria-labelledby="api-title">
        <h2 id="api-title">API</h2>
        <p class="muted small">Every endpoint, with its parameters and answers, in the interactive reference.</p>
        <a href="/swagger" target="_blank" rel="noopener">Open the API reference (/swagger)</a>
      </section>
    </section>
  );
}

/** Accepting needs a session: whoever opens the link logs in (or registers) first. */
export function InviteView({ code, done }: { code: string; done: () => void }) {
  useTitle("Invitation · botinbox");
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const accept = async () => {
    setBusy(true);
    setError("");
    try {
      const joined = await post<AcceptedInvite>("/api/invites/accept", { code });
      toast(`You joined ${joined.bot_name} as ${joined.role}`);
      done();
    } catch (err) {
      const status = err instanceof ApiError ? err.status : 0;
      setError(status === 403
        ? `This invite was sent to another e-mail address than ${session.email}. Log in with that address to accept it.`
        : status === 404 ? "This invite is unknown, already used or expired. Ask the bot's owner for a new one." : errorText(err));
      setBusy(false);
    }
  };
  return (
    <section class="page">
      <div class="card narrow-card" aria-labelledby="invite-title">
        <h1 id="invite-title" tabIndex={-1}>Join a bot's team</h1>
        <p>You were invited to work a bot's inbox as an operator. You are logged in as {session.email}.</p>
        <p class="form-error" role="alert">{error}</p>
        <div class="actions">
          <button type="button" class="primary" disabled={busy} onClick={accept}>Accept the invitation</button>
          <a href="#/inbox" onClick={done}>Not now</a>
        </div>
      </div>
    </section>
  );
}
