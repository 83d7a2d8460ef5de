// The bot's team (owner only): members with their role, removal, and invites. An invite's
// link and code are shown once, right after it is made: the server keeps only a hash.
import { del, get, post, type Invite, type Member } from "./api.ts";
import { copyButton, formatTime, h, replace, toast } from "./dom.ts";

export function membersSection(botId: string): HTMLElement {
  const members = h("ul", { class: "rows", "aria-label": "Members" });
  const invites = h("ul", { class: "rows", "aria-label": "Pending invites" });
  const created = h("div", { class: "invite-created", "aria-live": "polite" });
  const email = h("input", { type: "email", id: "invite-email", required: true, placeholder: "colleague@example.com", autocomplete: "off" });
  const error = h("p", { class: "form-error", role: "alert" });

  const act = (label: string, name: string, run: () => Promise<unknown>) =>
    h("button", {
      type: "button", class: "danger small", "aria-label": name,
      onclick: async () => {
        try {
          await run();
          void load();
        } catch (err) {
          toast((err as Error).message, "error");
        }
      },
    }, label);

  const load = async () => {
    try {
      const [team, pending] = await Promise.all([
        get<Member[]>(`/api/bots/${botId}/members`),
        get<Invite[]>(`/api/bots/${botId}/invites`),
      ]);
      replace(members, team.map((m) => h("li", { class: "row-item" },
        h("span", { class: "grow clip" }, m.email),
        h("span", { class: "pill" }, m.role),
        m.role === "owner" ? null : act("Remove", `Remove ${m.email}`, async () => {
          if (!confirm(`Remove ${m.email} from this bot? They lose access to its inbox at once.`)) return;
          await del(`/api/bots/${botId}/members/${m.user_id}`);
          toast(`${m.email} removed`);
        }),
      )));
      replace(invites, pending.length
        ? pending.map((i) => h("li", { class: "row-item" },
            h("span", { class: "grow clip" }, i.email),
            h("span", { class: "muted small" }, `expires ${formatTime(i.expires_at)}`),
            act("Revoke", `Revoke the invite for ${i.email}`, () => del(`/api/bots/${botId}/invites/${i.id}`)),
          ))
        : h("li", { class: "muted small" }, "No pending invites."));
    } catch (err) {
      replace(members, h("li", { class: "form-error" }, (err as Error).message));
    }
  };
  void load();

  const form = h("form", {
    class: "invite-form",
    onsubmit: async (e: SubmitEvent) => {
      e.preventDefault();
      error.textContent = "";
      try {
        const invite = await post<Invite>(`/api/bots/${botId}/invites`, { email: email.value.trim(), role: "operator" });
        email.value = "";
        const link = invite.invite_url ?? `${location.origin}/#invite=${invite.code}`;
        replace(created,
          h("p", null, `Send this link to ${invite.email}. It works once, for that e-mail address, until ${formatTime(invite.expires_at)}; it is not shown again.`),
          h("div", { class: "kv" }, h("code", { class: "invite-link" }, link), copyButton("Copy link", () => link, "Copy invite link")),
          invite.code ? h("div", { class: "kv" }, h("span", { class: "kv-label" }, "Or the code"), h("code", { class: "invite-code" }, invite.code), copyButton("Copy", () => invite.code!, "Copy invite code")) : null,
        );
        void load();
      } catch (err) {
        error.textContent = (err as Error).message;
      }
    },
  },
    h("div", { class: "row" },
      h("div", { class: "field grow" }, h("label", { for: "invite-email" }, "Invite an operator by e-mail"), email),
      h("button", { type: "submit", class: "primary" }, "Create invite"),
    ),
    error,
  );

  return h("div", null, members, h("h3", null, "Invites"), form, created, invites);
}
