// The launcher and chat panel, inside an open shadow root so the host page's CSS cannot
// reach in and ours cannot leak out. Message text only ever goes through textContent. The
// messages in the panel, and the history paged into it, are the chat log's (log.ts).
// Import order is bundle order: the CSS and the formatting tables ahead of the code gzip
// smallest (widget-size.test.ts); the chat log last, beside mount().
import { CSS } from "./styles.ts";
import { richMessages } from "./rich.ts";
import { Api, ApiError, type Connection, type WidgetConfig, type WidgetMessage } from "./api.ts";
import { connectionLabel, describeError, offlineQueue, seenMemory, unreachable, unreadNotice } from "./presence.ts";
import { misconfiguration, textOn } from "./setup.ts";
import { acceptFiles, drawFiles, progressBar, upload, viewer } from "./files.ts";
import { loadStrings, localize, S } from "./i18n.ts";
import { chatOf, randomId, storedChatId, type SiteUser } from "./visitor.ts";
import { lazyRating } from "./rating-loader.ts";
import { chatLog } from "./log.ts";

export interface Options {
  key: string;
  api: string;
  title?: string;
  subtitle?: string;
  user?: SiteUser;
  locale: string;
}

/** What window.BotInbox drives (index.ts). */
export interface Controller {
  open(): void;
  close(): void;
  toggle(): void;
  /** Another user (log-in), or null (log-out: a fresh anonymous chat, nothing of the last user's shown). */
  setUser(user: SiteUser | null): void;
  on(event: "message", fn: (m: WidgetMessage) => void): void;
}
/** Messages are capped by the API at this length; the textarea says so up front. */
const MAX_TEXT = 4096;
/** The textarea grows with its text up to this height, then scrolls. */
const MAX_INPUT_PX = 120;

const CHAT_ICON = '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M21 12a8 8 0 0 1-11.6 7.1L4 20l1-4.6A8 8 0 1 1 21 12z"/></svg>';
const CLOSE_ICON = '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M6 6l12 12M18 6L6 18"/></svg>';
const CLIP_ICON = '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M21 11l-8.5 8.5a5 5 0 0 1-7-7L14 4a3.5 3.5 0 0 1 5 5l-8.5 8.5a2 2 0 0 1-3-3L15 7"/></svg>';
const SEND_ICON = '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M5 12h13M12 5l7 7-7 7"/></svg>';

const TEMPLATE = `<style>${CSS}</style><div class="w">
<button class="launcher" type="button" aria-label="Open chat" aria-expanded="false" aria-controls="panel" aria-describedby="unread">${CHAT_ICON}<span class="badge" hidden></span></button>
<span class="sr" id="unread"></span><button class="preview" type="button" hidden></button>
<div class="panel" id="panel" role="dialog" aria-labelledby="title" hidden>
<header><div><h2 id="title"></h2><p></p><span class="conn"></span></div><button class="close" type="button" aria-label="Close chat">${CLOSE_ICON}</button></header>
<p class="away" role="status" hidden></p>
<div class="log" role="log" aria-live="polite" aria-label="Messages" tabindex="0"></div>
<p class="status" role="status"></p>
<form><button class="att" type="button" aria-label="Attach a file">${CLIP_ICON}</button><input type="file" multiple hidden><textarea aria-label="Message" rows="1" placeholder="Type a message…" maxlength="${MAX_TEXT}"></textarea><button class="send" type="submit" aria-label="Send">${SEND_ICON}</button></form>
</div></div>`;

export function mount(options: Options): Controller {
  const host = document.createElement("botinbox-widget");
  const root = host.attachShadow({ mode: "open" });
  root.innerHTML = TEMPLATE;
  const $ = <T extends Element>(selector: string) => root.querySelector(selector) as T;
  const wrap = $<HTMLElement>(".w");
  const launcher = $<HTMLButtonElement>(".launcher");
  const badge = $<HTMLElement>(".badge");
  const unread = $<HTMLElement>("#unread");
  const panel = $<HTMLElement>(".panel");
  const title = $<HTMLElement>("h2");
  const subtitle = $<HTMLElement>("header p");
  const away = $<HTMLElement>(".away");
  const log = $<HTMLElement>(".log");
  const status = $<HTMLElement>(".status");
  const form = $<HTMLFormElement>("form");
  const input = $<HTMLTextAreaElement>("textarea");
  const notice = unreadNotice(badge, unread, $<HTMLButtonElement>(".preview"));
  const showConnection = connectionLabel($<HTMLElement>(".conn"));

  const api = new Api(options.api, options.key);
  /** Settled once the chat is known: a verified user's is the server's answer. */
  let chatId = "";
  const identify = (user: SiteUser | null | undefined) => chatOf(api, options.key, user).then((id) => void (chatId = id));
  let ready = identify(options.user);
  const pending = new Map<string, HTMLElement>();
  let greeting: string | null = null;
  let started = false;
  /** Per user: what one user saw says nothing of the next one's chat. */
  const seenOf = (user: SiteUser | null | undefined) => seenMemory(user?.id ? `${options.key}:${user.id}` : options.key);
  let seen = seenOf(options.user);
  let stopFollowing = () => {};
  const listeners: ((m: WidgetMessage) => void)[] = [];

  const applyConfig = (c: WidgetConfig) => {
    title.textContent = options.title || c.title;
    subtitle.textContent = options.subtitle ?? c.subtitle;
    subtitle.hidden = !subtitle.textContent;
    if (/^#[0-9a-f]{6}$/i.test(c.color)) {
      wrap.style.setProperty("--c", c.color);
      wrap.style.setProperty("--f", textOn(c.color));
    }
    wrap.classList.toggle("left", c.position === "left");
    greeting = c.greeting;
    // Outside the team's hours (or nobody online): said up front, the away message itself comes as a reply.
    away.hidden = !c.away;
    const back = c.opens_at && new Date(c.opens_at).toLocaleString([], { weekday: "short", hour: "2-digit", minute: "2-digit" });
    away.textContent = c.away ? `${c.away_message || "We're away right now. Leave a message and we'll get back to you."}${back ? ` (back ${back})` : ""}` : "";
  };

  // A reply keyboard's button sends its label; a one-time keyboard then goes, so focus stays in the chat.
  const rich = richMessages(panel, api, () => chatId, (text) => (void send(text), input.focus()));
  const view = viewer(panel);
  const queued = offlineQueue((clientId, { text, el, files }) => void send(text, el, clientId, files));
  /** A new message in the log: seen at once with the panel open, announced on the launcher with it closed. */
  const arrived = (m: WidgetMessage, from: string) => {
    const id = Number(m.message_id);
    if (!panel.hidden) seen.set(id);
    else if (m.direction === "out" && id > (seen.get() ?? 0)) notice.add(m.text, from);
  };
  const messages = chatLog(log, api, () => chatId, title, rich, view, listeners, pending, queued, arrived);

  const setConnection = (state: Connection) => {
    showConnection(state);
    if (state === "online") queued.flush();
  };

  const send = async (text: string, el = messages.bubble(text, true), clientId: string = randomId(), files?: string[]) => {
    el.classList.add("pending");
    el.classList.remove("failed");
    messages.setMeta(el, S.sending);
    pending.set(clientId, el);
    status.textContent = "";
    try {
      const accepted = await api.send(chatId, text, clientId, files);
      if (pending.delete(clientId)) messages.settle(el, { ...accepted, created_at: new Date().toISOString() });
      // From the first message on, the closed widget follows this chat on every page.
      seen.set(Number(accepted.message_id));
    } catch (err) {
      // The server is out of reach (the visitor may well be online): it waits and goes later.
      if (unreachable(err)) {
        queued.add(clientId, { text, el, files });
        messages.setMeta(el, S.waiting);
        return showConnection("offline");
      }
      el.classList.replace("pending", "failed");
      const message = describeError(err);
      messages.setMeta(el, message);
      const retry = document.createElement("button");
      retry.type = "button";
      retry.textContent = S.retry;
      retry.onclick = () => void send(text, el, clientId, files);
      el.lastChild!.appendChild(retry);
      if (err instanceof ApiError && err.status === 429) status.textContent = message;
    }
  };

  /** Each file is its own message: uploaded with a progress bar, then sent; a refusal says why. */
  const attach = (files: File[]) => {
    for (const file of files) {
      const el = messages.bubble("", true);
      el.classList.add("pending");
      messages.setMeta(el, file.name);
      const up = upload(options.api, options.key, chatId, file, progressBar(el, () => up.cancel()), api.claim());
      up.done.then(
        (f) => {
          el.querySelector(".up")?.remove();
          drawFiles(el, [f], view);
          void send("", el, randomId(), [f.file_id]);
        },
        (err: Error) => {
          if (err.message === "cancelled") return el.remove();
          el.querySelector(".up")?.remove();
          el.classList.replace("pending", "failed");
          messages.setMeta(el, err.message);
        },
      );
    }
  };
  acceptFiles(panel, input, $<HTMLInputElement>("input[type=file]"), $<HTMLButtonElement>(".att"), attach);

  const start = async () => {
    started = true;
    await ready;
    // The greeting opens every conversation; it is the page's, not a stored message.
    if (greeting) messages.bubble(greeting, false).classList.add("greeting");
    await messages.latest(status);
    stopFollowing = api.follow(chatId, {
      state: setConnection,
      ...messages.live,
      status: lazyRating(options.api, log, api, chatId),
    });
  };

  /** Another user's chat replaces this one: nothing of the last user's stays on screen. */
  const setUser = (user: SiteUser | null) => {
    stopFollowing();
    stopFollowing = () => {};
    messages.clear();
    notice.clear();
    seen = seenOf(user);
    // Logging out leaves a fresh anonymous chat: the next person at this browser sees nothing.
    ready = user ? identify(user) : Promise.resolve(void (api.who = undefined, chatId = storedChatId(options.key, true)));
    if (started || !panel.hidden) void start();
  };

  const open = (isOpen: boolean) => {
    panel.hidden = !isOpen;
    launcher.setAttribute("aria-expanded", String(isOpen));
    if (!isOpen) return launcher.focus();
    notice.clear();
    if (messages.live.cursor()) seen.set(messages.live.cursor());
    if (!started) void start();
    messages.scrollDown();
    input.focus();
  };

  launcher.onclick = () => open(panel.hidden);
  $<HTMLButtonElement>(".preview").onclick = () => open(true);
  $<HTMLButtonElement>(".close").onclick = () => open(false);
  panel.addEventListener("keydown", (e) => {
    if (e.key === "Escape") open(false);
  });
  const resize = () => {
    input.style.height = "auto";
    input.style.height = `${Math.min(input.scrollHeight + 2, MAX_INPUT_PX)}px`;
  };
  input.addEventListener("input", resize);
  input.addEventListener("keydown", (e) => {
    // Enter sends; Shift+Enter breaks the line; an IME composition keeps its Enter.
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      form.requestSubmit();
    }
  });
  form.onsubmit = (e) => {
    e.preventDefault();
    const text = input.value.trim();
    if (!text) return;
    input.value = "";
    resize();
    void send(text);
  };

  applyConfig({ title: S.title, subtitle: "", greeting: null, color: "#2563eb", position: "right" });
  const strings = loadStrings(options.api, options.locale);
  Promise.all([api.config(), strings]).then(
    ([c]) => {
      localize(root, wrap, options.locale);
      applyConfig({ ...c, title: c.title || S.title });
      document.body.append(host);
      // A returning visitor hears about replies with the panel closed, on every page.
      if (seen.get() !== null) void start();
    },
    async (err: unknown) => {
      await strings;
      localize(root, wrap, options.locale);
      // A wrong key or a refused origin is the site owner's to fix: visitors see no dead chat,
      // the owner's console says which.
      const misconfigured = misconfiguration(err, options.key);
      if (misconfigured) return console.error(`botinbox widget: ${misconfigured} The chat stays hidden until then.`);
      // A disabled widget channel: the panel says so, never in the server's words.
      if (err instanceof ApiError && err.status >= 400 && err.status < 500 && err.status !== 429) {
        started = true;
        form.hidden = true;
        log.hidden = true;
        status.textContent = S.switchedOff;
        status.classList.add("closed");
      }
      document.body.append(host);
    },
  );
  return {
    open: () => open(true),
    close: () => open(false),
    toggle: () => open(panel.hidden),
    setUser,
    on: (event, fn) => {
      if (event !== "message") return;
      listeners.push(fn);
      // A site listening for replies hears them with the panel closed too, once there is a chat.
      if (!started && seen.get() !== null) void start();
    },
  };
}
