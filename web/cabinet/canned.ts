// Canned replies: `/` in the reply box offers the bot's saved answers (type to narrow,
// arrows to choose, Enter or Tab to insert); the bot card lists, adds and deletes them.
import { del, get, post, type CannedReply } from "./api.ts";
import { h, replace, toast } from "./dom.ts";

/** Suggestions shown at once; the rest are reached by typing more. */
const MAX_SUGGESTIONS = 8;
const cache = new Map<string, Promise<CannedReply[]>>();

export function cannedReplies(botId: string): Promise<CannedReply[]> {
  let replies = cache.get(botId);
  if (!replies) {
    replies = get<CannedReply[]>(`/api/bots/${botId}/canned-replies`);
    replies.catch(() => cache.delete(botId));
    cache.set(botId, replies);
  }
  return replies;
}

/** The `/word` right before the caret, if the operator is typing one. */
function slashToken(area: HTMLTextAreaElement): { start: number; query: string } | undefined {
  const before = area.value.slice(0, area.selectionStart);
  const match = /(?:^|\s)\/([^\s/]*)$/.exec(before);
  if (!match) return undefined;
  return { start: before.length - match[1]!.length - 1, query: match[1]!.toLowerCase() };
}

/** Attaches the picker to a reply box; returns the popup element to place above it. */
export function cannedPicker(area: HTMLTextAreaElement, botId: () => string | undefined): HTMLElement {
  const box = h("ul", { class: "canned-popup", role: "listbox", id: "canned-popup", "aria-label": "Canned replies", hidden: true });
  let shown: CannedReply[] = [];
  let active = 0;
  let seq = 0;

  const close = () => {
    box.hidden = true;
    shown = [];
    area.removeAttribute("aria-activedescendant");
    area.setAttribute("aria-expanded", "false");
  };
  const paint = () => {
    replace(box, shown.map((r, i) => h("li", {
      role: "option", id: `canned-${i}`, "aria-selected": String(i === active), class: i === active ? "active" : null,
      onmousedown: (e: MouseEvent) => {
        e.preventDefault();
        insert(r);
      },
    }, h("strong", null, `/${r.shortcut}`), " ", h("span", { class: "muted" }, r.text))));
    area.setAttribute("aria-activedescendant", `canned-${active}`);
  };
  const insert = (r: CannedReply) => {
    const token = slashToken(area);
    if (!token) return close();
    const end = area.selectionStart;
    area.value = area.value.slice(0, token.start) + r.text + area.value.slice(end);
    const caret = token.start + r.text.length;
    area.setSelectionRange(caret, caret);
    close();
    area.dispatchEvent(new Event("input"));
  };

  const refresh = async () => {
    const token = slashToken(area);
    const id = botId();
    if (!token || !id) return close();
    const mine = ++seq;
    let replies: CannedReply[];
    try {
      replies = await cannedReplies(id);
    } catch {
      return close();
    }
    if (mine !== seq) return;
    shown = replies
      .filter((r) => r.shortcut.toLowerCase().startsWith(token.query) || r.text.toLowerCase().includes(token.query))
      .slice(0, MAX_SUGGESTIONS);
    active = 0;
    if (!shown.length) {
      replace(box, h("li", { class: "muted" }, replies.length ? "No canned reply matches." : "No canned replies yet: add them on the bot's page."));
      box.hidden = false;
      return;
    }
    box.hidden = false;
    area.setAttribute("aria-expanded", "true");
    paint();
  };

  area.setAttribute("aria-controls", "canned-popup");
  area.setAttribute("aria-autocomplete", "list");
  area.addEventListener("input", () => void refresh());
  area.addEventListener("blur", close);
  // Registered before the reply form's Enter handler, so choosing a reply does not send it.
  area.addEventListener("keydown", (e) => {
    if (box.hidden || !shown.length) {
      if (e.key === "Escape" && !box.hidden) close();
      return;
    }
    if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      active = (active + (e.key === "ArrowDown" ? 1 : shown.length - 1)) % shown.length;
      paint();
    } else if (e.key === "Enter" || e.key === "Tab") {
      insert(shown[active]!);
    } else if (e.key === "Escape") {
      close();
    } else return;
    e.preventDefault();
    e.stopImmediatePropagation();
  });
  return box;
}

/** The bot card's section: every member may keep the team's answers. */
export function cannedSection(botId: string): HTMLElement {
  const list = h("ul", { class: "rows", "aria-label": "Canned replies" });
  const shortcut = h("input", { id: "canned-shortcut", required: true, maxlength: 32, pattern: "[^\\s/]+", placeholder: "hours" });
  const text = h("textarea", { id: "canned-text", required: true, rows: 2, maxlength: 4096, placeholder: "We answer from 9:00 to 18:00, Monday to Friday." });
  const error = h("p", { class: "form-error", role: "alert" });

  const load = async () => {
    cache.delete(botId);
    try {
      const replies = await cannedReplies(botId);
      replace(list, replies.length
        ? replies.map((r) => h("li", { class: "row-item" },
            h("code", null, `/${r.shortcut}`),
            h("span", { class: "grow clip" }, r.text),
            h("button", {
              type: "button", class: "danger small", "aria-label": `Delete /${r.shortcut}`,
              onclick: async () => {
                try {
                  await del(`/api/bots/${botId}/canned-replies/${r.id}`);
                  void load();
                } catch (err) {
                  toast((err as Error).message, "error");
                }
              },
            }, "Delete"),
          ))
        : h("li", { class: "muted small" }, "None yet. Type / in the reply box to use them."));
    } catch (err) {
      replace(list, h("li", { class: "form-error" }, (err as Error).message));
    }
  };
  void load();

  const form = h("form", {
    class: "canned-form",
    onsubmit: async (e: SubmitEvent) => {
      e.preventDefault();
      error.textContent = "";
      try {
        await post(`/api/bots/${botId}/canned-replies`, { shortcut: shortcut.value.trim().replace(/^\//, ""), text: text.value.trim() });
        shortcut.value = "";
        text.value = "";
        void load();
      } catch (err) {
        error.textContent = (err as Error).message;
      }
    },
  },
    h("div", { class: "row" },
      h("div", { class: "field" }, h("label", { for: "canned-shortcut" }, "Shortcut"), shortcut),
      h("div", { class: "field grow" }, h("label", { for: "canned-text" }, "Reply text"), text),
      h("button", { type: "submit", class: "ghost" }, "Add reply"),
    ),
    error,
  );
  return h("div", null, list, form);
}
