// The bots list and the create form.
import { get, post, type Bot } from "./api.ts";
import { formatTime, h, replace, toast, type Cleanup } from "./dom.ts";

export function botsView(main: HTMLElement): Cleanup {
  document.title = "Bots · botinbox";
  const list = h("ul", { class: "bot-list", "aria-label": "Your bots", "aria-busy": "true" });
  const name = h("input", { name: "name", id: "bot-name", required: true, maxlength: 64, placeholder: "Support bot" });
  const description = h("input", { name: "description", id: "bot-description", maxlength: 512, placeholder: "Optional" });
  const error = h("p", { class: "form-error", role: "alert" });
  const submit = h("button", { type: "submit", class: "primary" }, "Create bot");

  const form = h("form", {
    class: "card create-bot",
    "aria-labelledby": "create-title",
    onsubmit: async (e: SubmitEvent) => {
      e.preventDefault();
      error.textContent = "";
      submit.disabled = true;
      try {
        const bot = await post<Bot>("/api/bots", { name: name.value.trim(), description: description.value.trim() || undefined });
        toast(`${bot.name} is ready`);
        location.hash = `#/bots/${bot.id}`;
      } catch (err) {
        error.textContent = (err as Error).message;
      } finally {
        submit.disabled = false;
      }
    },
  },
    h("h2", { id: "create-title" }, "New bot"),
    h("div", { class: "row" },
      h("div", { class: "field" }, h("label", { for: "bot-name" }, "Name"), name),
      h("div", { class: "field grow" }, h("label", { for: "bot-description" }, "Description"), description),
      submit,
    ),
    error,
  );

  replace(main, h("section", { class: "page" },
    h("div", { class: "page-head" }, h("h1", { tabindex: "-1" }, "Bots")),
    form,
    list,
  ));

  let alive = true;
  get<Bot[]>("/api/bots").then((bots) => {
    if (!alive) return;
    list.removeAttribute("aria-busy");
    if (!bots.length) return replace(list, h("li", { class: "empty" }, "No bots yet. Create your first one above."));
    replace(list, bots.map((bot) =>
      h("li", null, h("a", { class: "card bot-item", href: `#/bots/${bot.id}` },
        h("span", { class: "avatar", "aria-hidden": "true" }, bot.name.slice(0, 1).toUpperCase()),
        h("span", { class: "bot-item-text" },
          h("strong", null, bot.name),
          h("span", { class: "muted" }, `@${bot.username}`),
        ),
        bot.role === "operator" ? h("span", { class: "pill" }, "operator") : null,
        h("span", { class: "muted small" }, `Created ${formatTime(bot.created_at)}`),
      )),
    ));
  }, (err: Error) => alive && replace(list, h("li", { class: "form-error" }, err.message)));
  return () => (alive = false);
}
