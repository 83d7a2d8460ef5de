// The bot card. The owner: name (rename, delete), token (copy, rotate), keys, the embed
// snippet, webhook status, channels, team and invites. Every member: canned replies.
import { del, get, patch, post, type Bot, type Channel } from "./api.ts";
import { cannedSection } from "./canned.ts";
import { channelsSection } from "./channels.ts";
import { copyButton, formatTime, h, replace, toast, type Cleanup } from "./dom.ts";
import type { Context } from "./main.ts";
import { membersSection } from "./members.ts";

/** The bot-token secret is shown masked until asked for. */
const MASK = "•".repeat(24);

export function embedSnippet(base: string, widgetKey: string): string {
  return `<script src="${base}/widget.js" data-widget-key="${widgetKey}" data-api-url="${base}" async></script>`;
}

export function botCardView(main: HTMLElement, id: string, ctx: Context): Cleanup {
  let alive = true;
  const page = h("section", { class: "page", "aria-busy": "true" }, h("p", { class: "muted" }, "Loading…"));
  replace(main, page);
  get<Bot>(`/api/bots/${id}`).then(async (bot) => {
    // Only the owner may see channels (and the token, keys and team).
    if (!isOwner(bot)) return alive && renderForOperator(page, bot);
    const channels = await get<Channel[]>(`/api/bots/${id}/channels`);
    if (alive) render(page, bot, channels, ctx);
  }).catch((err: Error) => alive && replace(page, h("p", { class: "form-error", role: "alert" }, err.message), h("a", { href: "#/bots" }, "← All bots")));
  return () => (alive = false);
}

export const isOwner = (bot: Bot) => (bot.role ? bot.role === "owner" : Boolean(bot.token));

/** The name as a heading, with a rename form behind a button (owner only). */
function nameHeading(bot: Bot, owner: boolean): HTMLElement {
  const heading = h("h1", { tabindex: "-1" }, bot.name);
  if (!owner) return heading;
  const input = h("input", { id: "bot-rename", required: true, maxlength: 64, value: bot.name, "aria-label": "Bot name" });
  const form = h("form", {
    class: "rename", hidden: true,
    onsubmit: async (e: SubmitEvent) => {
      e.preventDefault();
      try {
        const renamed = await patch<Bot>(`/api/bots/${bot.id}`, { name: input.value.trim() });
        bot.name = renamed.name;
        heading.textContent = renamed.name;
        document.title = `${renamed.name} · botinbox`;
        toast("Renamed");
        form.hidden = true;
        wrap.hidden = false;
      } catch (err) {
        toast((err as Error).message, "error");
      }
    },
  }, input, h("button", { type: "submit", class: "primary small" }, "Save"),
    h("button", { type: "button", class: "ghost small", onclick: () => ((form.hidden = true), (wrap.hidden = false)) }, "Cancel"));
  const wrap = h("div", { class: "name-line" }, heading,
    h("button", { type: "button", class: "ghost small", onclick: () => ((wrap.hidden = true), (form.hidden = false), input.focus()) }, "Rename"));
  return h("div", null, wrap, form);
}

function head(bot: Bot, owner: boolean): HTMLElement {
  return h("div", { class: "page-head" },
    h("span", { class: "avatar big", "aria-hidden": "true" }, bot.name.slice(0, 1).toUpperCase()),
    h("div", { class: "grow" },
      nameHeading(bot, owner),
      h("p", { class: "muted" }, `@${bot.username} · bot #${bot.number}`, bot.description ? ` · ${bot.description}` : "", owner ? "" : " · you are an operator"),
    ),
  );
}

function renderForOperator(page: HTMLElement, bot: Bot) {
  document.title = `${bot.name} · botinbox`;
  page.removeAttribute("aria-busy");
  replace(page,
    h("a", { href: "#/bots", class: "back" }, "← All bots"),
    head(bot, false),
    h("p", { class: "muted" }, "The bot's owner manages its token, channels and team. You work its conversations in the ", h("a", { href: "#/inbox" }, "inbox"), "."),
    h("section", { class: "card", "aria-labelledby": "canned-title" },
      h("h2", { id: "canned-title" }, "Canned replies"),
      cannedSection(bot.id),
    ),
  );
}

function dangerZone(bot: Bot): HTMLElement {
  const remove = h("button", {
    type: "button", class: "danger",
    onclick: async () => {
      if (!confirm(`Delete ${bot.name}? Its conversations, contacts, channels and team are removed for good. This cannot be undone.`)) return;
      remove.disabled = true;
      try {
        await del(`/api/bots/${bot.id}`);
        toast(`${bot.name} deleted`);
        location.hash = "#/bots";
      } catch (err) {
        toast((err as Error).message, "error");
        remove.disabled = false;
      }
    },
  }, "Delete bot");
  return h("section", { class: "card span-2 danger-zone", "aria-labelledby": "danger-title" },
    h("h2", { id: "danger-title" }, "Delete this bot"),
    h("p", { class: "muted small" }, "Removes the bot with all its conversations and data, for every member."),
    remove,
  );
}

function render(page: HTMLElement, initial: Bot, channels: Channel[], ctx: Context) {
  let bot = initial;
  const token = () => bot.token ?? "";
  document.title = `${bot.name} · botinbox`;
  page.removeAttribute("aria-busy");

  const tokenText = h("code", { class: "secret" });
  let revealed = false;
  const showToken = () => {
    const [number] = token().split(":");
    tokenText.textContent = revealed ? token() : `${number}:${MASK}`;
    reveal.textContent = revealed ? "Hide" : "Show";
  };
  const reveal = h("button", { type: "button", class: "ghost small", onclick: () => { revealed = !revealed; showToken(); } }, "Show");
  const rotate = h("button", {
    type: "button",
    class: "danger small",
    onclick: async () => {
      if (!confirm("Rotate the token? The current token stops working immediately.")) return;
      rotate.disabled = true;
      try {
        bot = await post<Bot>(`/api/bots/${bot.id}/token`);
        showToken();
        toast("New token issued; the old one no longer works");
        void loadWebhook();
      } catch (err) {
        toast((err as Error).message, "error");
      } finally {
        rotate.disabled = false;
      }
    },
  }, "Rotate");
  showToken();

  const snippet = embedSnippet(ctx.publicUrl, bot.widget_key);
  const webhook = h("div", { class: "webhook", "aria-live": "polite", "aria-labelledby": "webhook-title" }, h("span", { class: "muted" }, "Checking…"));
  const loadWebhook = async () => {
    try {
      const info = await get(`/api/bots/${bot.id}/get-webhook-info`, token());
      replace(webhook, info.url
        ? [
            h("span", { class: "pill ok" }, "Webhook"), " ", h("code", null, info.url),
            h("p", { class: "muted small" }, `${info.pending_update_count ?? 0} pending update(s)`),
            info.last_error_message
              ? h("p", { class: "form-error small" }, `Last error${info.last_error_date ? ` (${formatTime(new Date(info.last_error_date * 1000).toISOString())})` : ""}: ${info.last_error_message}`)
              : null,
          ]
        : [h("span", { class: "pill" }, "Polling"), " ", h("span", { class: "muted" }, "No webhook set: the bot reads updates with get-updates.")]);
    } catch {
      // The webhook API may be missing or refuse: polling is what a bot without a webhook does.
      replace(webhook, h("span", { class: "pill" }, "Polling"), " ", h("span", { class: "muted" }, "Webhook status unavailable; the bot reads updates with get-updates."));
    }
  };
  void loadWebhook();

  const keyRow = (label: string, value: string) =>
    h("div", { class: "kv" }, h("span", { class: "kv-label" }, label), h("code", null, value), copyButton("Copy", () => value, `Copy ${label.toLowerCase()}`));

  replace(page,
    h("a", { href: "#/bots", class: "back" }, "← All bots"),
    head(bot, true),
    h("div", { class: "grid" },
      h("section", { class: "card", "aria-labelledby": "token-title" },
        h("h2", { id: "token-title" }, "API token"),
        h("p", { class: "muted small" }, "For the bot's backend: Authorization: Bearer <token>, or Telegram libraries pointed at this server."),
        h("div", { class: "kv" }, tokenText, reveal, copyButton("Copy", token, "Copy token"), rotate),
        h("h3", { id: "webhook-title" }, "Updates delivery"),
        webhook,
      ),
      h("section", { class: "card", "aria-labelledby": "keys-title" },
        h("h2", { id: "keys-title" }, "Keys"),
        keyRow("Widget key", bot.widget_key),
        keyRow("Integration key", bot.integration_key),
      ),
      h("section", { class: "card span-2", "aria-labelledby": "embed-title" },
        h("h2", { id: "embed-title" }, "Website widget"),
        h("p", { class: "muted small" }, "Paste this before </body> on every page where visitors should be able to chat."),
        h("pre", { class: "snippet", "aria-label": "Embed snippet" }, h("code", null, snippet)),
        copyButton("Copy snippet", () => snippet),
      ),
      h("section", { class: "card span-2", "aria-labelledby": "channels-title" },
        h("h2", { id: "channels-title" }, "Channels"),
        channelsSection(bot.id, channels),
      ),
      h("section", { class: "card", "aria-labelledby": "team-title" },
        h("h2", { id: "team-title" }, "Team"),
        membersSection(bot.id),
      ),
      h("section", { class: "card", "aria-labelledby": "canned-title" },
        h("h2", { id: "canned-title" }, "Canned replies"),
        cannedSection(bot.id),
      ),
      dangerZone(bot),
    ),
  );
}
