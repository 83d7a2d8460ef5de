// The account page (change the password) and the invite page (#invite=<code>): joining a
// bot's team with the invite the owner sent.
import { ApiError, post, session } from "./api.ts";
import { h, replace, toast, type Cleanup } from "./dom.ts";

/** The API's own minimum (DESIGN §5), as on the registration form. */
const MIN_PASSWORD = 6;

export function accountView(main: HTMLElement, logout: () => void): Cleanup {
  document.title = "Account · botinbox";
  const current = h("input", { type: "password", id: "current-password", required: true, autocomplete: "current-password" });
  const next = h("input", { type: "password", id: "new-password", required: true, minlength: MIN_PASSWORD, autocomplete: "new-password" });
  const error = h("p", { class: "form-error", role: "alert" });
  const submit = h("button", { type: "submit", class: "primary" }, "Change password");
  const form = h("form", {
    class: "card narrow-card",
    "aria-labelledby": "password-title",
    onsubmit: async (e: SubmitEvent) => {
      e.preventDefault();
      error.textContent = "";
      if (next.value.length < MIN_PASSWORD) {
        error.textContent = `The new password needs at least ${MIN_PASSWORD} characters.`;
        return next.focus();
      }
      submit.disabled = true;
      try {
        // Every earlier token stops working, this tab's too: the answer brings the new one.
        const result = await post<{ token: string; user: { email: string } }>("/api/auth/password", { current_password: current.value, new_password: next.value });
        session.start(result.token, result.user.email);
        current.value = "";
        next.value = "";
        toast("Password changed");
      } catch (err) {
        error.textContent = err instanceof ApiError && err.status === 400 ? "The current password is not right." : (err as Error).message;
      } finally {
        submit.disabled = false;
      }
    },
  },
    h("h2", { id: "password-title" }, "Change password"),
    h("div", { class: "field" }, h("label", { for: "current-password" }, "Current password"), current),
    h("div", { class: "field" }, h("label", { for: "new-password" }, "New password"), next),
    h("p", { class: "hint" }, `At least ${MIN_PASSWORD} characters.`),
    error,
    submit,
  );
  replace(main, h("section", { class: "page" },
    h("div", { class: "page-head" },
      h("div", { class: "grow" }, h("h1", { tabindex: "-1" }, "Account"), h("p", { class: "muted" }, session.email)),
      h("button", { type: "button", class: "ghost", onclick: logout }, "Log out"),
    ),
    form,
    h("section", { class: "card narrow-card", "aria-labelledby": "api-title" },
      h("h2", { id: "api-title" }, "API"),
      h("p", { class: "muted small" }, "Every endpoint, with its parameters and answers, in the interactive reference."),
      h("a", { href: "/swagger", target: "_blank", rel: "noopener" }, "Open the API reference (/swagger)"),
    ),
  ));
  return () => {};
}

/** Accepting needs a session: whoever opens the link logs in (or registers) first. */
export function inviteView(main: HTMLElement, code: string, done: () => void): Cleanup {
  document.title = "Invitation · botinbox";
  let alive = true;
  const error = h("p", { class: "form-error", role: "alert" });
  const accept = h("button", {
    type: "button", class: "primary",
    onclick: async () => {
      accept.disabled = true;
      error.textContent = "";
      try {
        const joined = await post<{ bot_id: string; bot_name: string; role: string }>("/api/invites/accept", { code });
        if (!alive) return;
        toast(`You joined ${joined.bot_name} as ${joined.role}`);
        done();
      } catch (err) {
        const status = err instanceof ApiError ? err.status : 0;
        error.textContent = status === 403
          ? `This invite was sent to another e-mail address than ${session.email}. Log in with that address to accept it.`
          : status === 404 ? "This invite is unknown, already used or expired. Ask the bot's owner for a new one." : (err as Error).message;
        accept.disabled = false;
      }
    },
  }, "Accept the invitation");
  replace(main, h("section", { class: "page" },
    h("div", { class: "card narrow-card", "aria-labelledby": "invite-title" },
      h("h1", { id: "invite-title", tabindex: "-1" }, "Join a bot's team"),
      h("p", null, `You were invited to work a bot's inbox as an operator. You are logged in as ${session.email}.`),
      error,
      h("div", { class: "actions" }, accept, h("a", { href: "#/inbox", onclick: done }, "Not now")),
    ),
  ));
  return () => (alive = false);
}
