// Log in and register: one form, two modes; the token goes to localStorage.
import { ApiError, post, session } from "./api.ts";
import { h } from "./dom.ts";

/** The API's own minimum (DESIGN §5); checked here to answer before a round trip. */
const MIN_PASSWORD = 6;

/** `note` says why the page asks to log in (an invite link, say). */
export function authView(mode: string, done: (landing: string) => void, note?: string): HTMLElement {
  const registering = mode === "register";
  const error = h("p", { class: "form-error", role: "alert" });
  const email = h("input", { type: "email", name: "email", autocomplete: "email", required: true, id: "auth-email" });
  const password = h("input", {
    type: "password", name: "password", required: true, minlength: MIN_PASSWORD, id: "auth-password",
    autocomplete: registering ? "new-password" : "current-password",
  });
  const submit = h("button", { type: "submit", class: "primary wide" }, registering ? "Create account" : "Log in");
  const form = h("form", {
    class: "auth-card card",
    "aria-labelledby": "auth-title",
    onsubmit: async (e: SubmitEvent) => {
      e.preventDefault();
      error.textContent = "";
      if (password.value.length < MIN_PASSWORD) {
        error.textContent = `The password needs at least ${MIN_PASSWORD} characters.`;
        return password.focus();
      }
      submit.disabled = true;
      try {
        const result = await post(registering ? "/api/auth/register" : "/api/auth/login", { email: email.value.trim(), password: password.value });
        session.start(result.token, result.user.email);
        done(registering ? "#/bots" : "#/inbox");
      } catch (err) {
        error.textContent = err instanceof ApiError && err.status === 409 ? "An account with this e-mail already exists. Log in instead." : (err as Error).message;
      } finally {
        submit.disabled = false;
      }
    },
  },
    h("div", { class: "brand big" }, h("span", { class: "logo", "aria-hidden": "true" }, "◆"), "botinbox"),
    h("h1", { id: "auth-title" }, registering ? "Create your account" : "Log in to your inbox"),
    note ? h("p", { class: "auth-note" }, note) : null,
    h("label", { for: "auth-email" }, "E-mail"),
    email,
    h("label", { for: "auth-password" }, "Password"),
    password,
    registering ? h("p", { class: "hint" }, `At least ${MIN_PASSWORD} characters.`) : null,
    error,
    submit,
    h("p", { class: "auth-switch" },
      registering ? "Already have an account? " : "New here? ",
      h("a", { href: registering ? "#/login" : "#/register" }, registering ? "Log in" : "Create an account"),
    ),
  );
  queueMicrotask(() => email.focus());
  return h("div", { class: "auth-page" }, form);
}
