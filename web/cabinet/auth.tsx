// Log in and register: one form, two modes; the token goes to localStorage.
import { useEffect, useRef, useState } from "preact/hooks";
import { ApiError, post, session, type AuthResult } from "./api.ts";
import { errorText, useTitle } from "./ui.tsx";

/** The API's own minimum (MIN_PASSWORD_LENGTH); checked here to answer before a round trip. */
export const MIN_PASSWORD = 6;

/** `note` says why the page asks to log in (an invite link, say). */
export function AuthView({ mode, done, note }: { mode: string; done: (landing: string) => void; note?: string }) {
  const registering = mode === "register";
  useTitle(registering ? "Create an account · botinbox" : "Log in · botinbox");
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const email = useRef<HTMLInputElement>(null);
  const password = useRef<HTMLInputElement>(null);
  useEffect(() => email.current?.focus(), [registering]);

  const submit = async (e: SubmitEvent) => {
    e.preventDefault();
    setError("");
    if (password.current!.value.length < MIN_PASSWORD) {
      setError(`The password needs at least ${MIN_PASSWORD} characters.`);
      return password.current!.focus();
    }
    setBusy(true);
    try {
      const result = await post<AuthResult>(registering ? "/api/auth/register" : "/api/auth/login", {
        email: email.current!.value.trim(), password: password.current!.value,
      });
      session.start(result.token, result.user.email);
      done(registering ? "#/bots" : "#/inbox");
    } catch (err) {
      setError(err instanceof ApiError && err.status === 409 ? "An account with this e-mail already exists. Log in instead." : errorText(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div class="auth-page">
      <form class="auth-card card" aria-labelledby="auth-title" onSubmit={submit}>
        <div class="brand big"><span class="logo" aria-hidden="true">◆</span>botinbox</div>
        <h1 id="auth-title">{registering ? "Create your account" : "Log in to your inbox"}</h1>
        {note && <p class="auth-note">{note}</p>}
        <label for="auth-email">E-mail</label>
        <input ref={email} type="email" name="email" autocomplete="email" required id="auth-email" />
        <label for="auth-password">Password</label>
        <input ref={password} type="password" name="password" required minLength={MIN_PASSWORD} id="auth-password"
          autocomplete={registering ? "new-password" : "current-password"} />
        {registering ? <p class="hint">At least {MIN_PASSWORD} characters.</p> : <p class="hint"><a href="#/forgot">Forgot password?</a></p>}
        <p class="form-error" role="alert">{error}</p>
        <button type="submit" class="primary wide" disabled={busy}>{registering ? "Create account" : "Log in"}</button>
        <p class="auth-switch">
          {registering ? "Already have an account? " : "New here? "}
          <a href={registering ? "#/login" : "#/register"}>{registering ? "Log in" : "Create an account"}</a>
        </p>
      </form>
    </div>
  );
}
