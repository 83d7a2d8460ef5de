// "Forgot password?": ask for a reset link by mail (#/forgot), and set a new password from
// the mailed link (#/reset?token=…). Without SMTP_URL the server sends no mail: the page says so.
import type { ComponentChildren } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { ApiError, get, post, session, type AuthResult } from "./api.ts";
import { MIN_PASSWORD } from "./auth.tsx";
import { errorText, useTitle } from "./ui.tsx";

const NOT_CONFIGURED = "Reset by mail is not configured on this server. Ask whoever runs it to reset your password.";
const SENT = "If an account uses this address, a mail with a link is on its way. The link works once, for an hour.";

function Card({ title, children }: { title: string; children: ComponentChildren }) {
  useTitle("Reset your password · botinbox");
  return (
    <div class="auth-page">
      <div class="auth-card card">
        <div class="brand big"><span class="logo" aria-hidden="true">◆</span>botinbox</div>
        <h1>{title}</h1>
        {children}
        <p class="auth-switch"><a href="#/login">Back to log in</a></p>
      </div>
    </div>
  );
}

export function ForgotView() {
  const [status, setStatus] = useState("");
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const email = useRef<HTMLInputElement>(null);
  useEffect(() => {
    email.current?.focus();
    get<{ configured: boolean }>("/api/auth/password-reset").then(({ configured }) => !configured && setStatus(NOT_CONFIGURED)).catch(() => {});
  }, []);
  const submit = async (e: SubmitEvent) => {
    e.preventDefault();
    setError("");
    setBusy(true);
    try {
      const { sent } = await post<{ sent: boolean }>("/api/auth/password-reset", { email: email.current!.value.trim() });
      setStatus(sent ? SENT : NOT_CONFIGURED);
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Card title="Reset your password">
      {status && <p class="auth-note" role="status">{status}</p>}
      <form hidden={Boolean(status)} onSubmit={submit}>
        <label for="forgot-email">E-mail</label>
        <input ref={email} type="email" name="email" autocomplete="email" required id="forgot-email" />
        <p class="form-error" role="alert">{error}</p>
        <button type="submit" class="primary wide" disabled={busy}>Send me a link</button>
      </form>
    </Card>
  );
}

export function ResetView({ token, done }: { token: string; done: () => void }) {
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const password = useRef<HTMLInputElement>(null);
  useEffect(() => password.current?.focus(), []);
  const submit = async (e: SubmitEvent) => {
    e.preventDefault();
    setError("");
    if (password.current!.value.length < MIN_PASSWORD) {
      setError(`The password needs at least ${MIN_PASSWORD} characters.`);
      return password.current!.focus();
    }
    setBusy(true);
    try {
      const result = await post<AuthResult>("/api/auth/password-reset/confirm", { token, password: password.current!.value });
      session.start(result.token, result.user.email);
      done();
    } catch (err) {
      setError(err instanceof ApiError && err.status === 400 ? "This link is invalid, used or expired. Ask for a new one." : errorText(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Card title="Choose a new password">
      <form onSubmit={submit}>
        <label for="reset-password">New password</label>
        <input ref={password} type="password" name="password" autocomplete="new-password" required minLength={MIN_PASSWORD} id="reset-password" />
        <p class="hint">At least {MIN_PASSWORD} characters.</p>
        <p class="form-error" role="alert">{error}</p>
        <button type="submit" class="primary wide" disabled={busy}>Set the new password</button>
      </form>
    </Card>
  );
}
