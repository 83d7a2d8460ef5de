// The cabinet: a hash-routed single page. #/login, #/register, #/bots, #/bots/<id>,
// #/inbox, #/inbox/<conversation id>, #/account and #invite=<code> (an invite link). One live feed serves every view. A route asked
// for without a session (a notification's link, say) is opened after logging in.
import { accountView, inviteView } from "./account.ts";
import { session, whenSessionExpires } from "./api.ts";
import { authView } from "./auth.ts";
import { botCardView } from "./botcard.ts";
import { botsView } from "./bots.ts";
import { h, replace, toast, type Cleanup } from "./dom.ts";
import { inboxView, type InboxView } from "./inbox.ts";
import { LiveFeed, type LiveState } from "./live.ts";
import { followNotificationClicks, notificationsControl } from "./notifications.ts";
import { disablePush, pushSupported } from "./push.ts";

export interface Context {
  live: LiveFeed;
  /** Base URL for the embed snippet: PUBLIC_URL when configured, else this page's origin. */
  publicUrl: string;
}

const app = document.getElementById("app")!;
const configured = document.querySelector<HTMLMetaElement>('meta[name="botinbox-public-url"]')?.content ?? "";
const ctx: Context = {
  live: new LiveFeed(() => expire()),
  publicUrl: (configured && !configured.startsWith("%") ? configured : location.origin).replace(/\/+$/, ""),
};

let cleanup: Cleanup | undefined;
/** Kept while the route stays in the inbox, so opening another conversation keeps the list. */
let inbox: InboxView | undefined;
let shell: { root: HTMLElement; main: HTMLElement; links: Map<string, HTMLAnchorElement>; dispose: () => void } | undefined;
/** The route to open once the operator has logged in. */
let afterLogin: string | undefined;
const AUTH_SECTIONS = new Set(["login", "register"]);
const sectionOf = (hash: string) => hash.replace(/^#\/?/, "").split("/")[0] ?? "";
const INVITE = /^#invite=([\w-]+)/;

function rememberRoute() {
  const section = sectionOf(location.hash);
  if (section && !AUTH_SECTIONS.has(section)) afterLogin = location.hash;
}

function expire() {
  rememberRoute();
  session.end();
  toast("Your session has ended. Please log in again.", "error");
  location.hash = "#/login";
  render();
}
whenSessionExpires(expire);

/**
 * Logging out also stops this browser's notifications: they show message text to whoever
 * uses it next. (An expired session keeps them: the operator did not ask to stop.)
 */
function logout() {
  const token = session.token;
  if (token && pushSupported()) disablePush(token).catch(() => {});
  session.end();
  location.hash = "#/login";
}

const LIVE_LABELS: Record<LiveState, string> = { live: "Live", connecting: "Connecting…", offline: "Offline, reconnecting…" };

function buildShell() {
  const links = new Map<string, HTMLAnchorElement>([
    ["inbox", h("a", { href: "#/inbox" }, "Inbox")],
    ["bots", h("a", { href: "#/bots" }, "Bots")],
    ["account", h("a", { href: "#/account" }, "Account")],
  ]);
  const liveBadge = h("span", { class: "live-state", role: "status" });
  const stopState = ctx.live.onState((state) => {
    liveBadge.className = `live-state ${state}`;
    liveBadge.textContent = LIVE_LABELS[state];
  });
  const notifications = notificationsControl();
  const main = h("main", { id: "main", tabindex: "-1" });
  const root = h("div", { class: "shell" },
    h("header", { class: "topbar" },
      h("a", { class: "brand", href: "#/inbox" }, h("span", { class: "logo", "aria-hidden": "true" }, "◆"), "botinbox"),
      h("nav", { "aria-label": "Main" }, [...links.values()]),
      h("div", { class: "topbar-end" },
        liveBadge,
        notifications.root,
        h("a", { class: "api-link", href: "/swagger", target: "_blank", rel: "noopener", title: "API reference" }, "API"),
        h("span", { class: "who" }, session.email),
        h("button", { type: "button", class: "ghost small logout", onclick: logout }, "Log out"),
      ),
    ),
    main,
  );
  const dispose = () => {
    stopState();
    notifications.dispose();
  };
  return { root, main, links, dispose };
}

function render() {
  const [section = "", id] = location.hash.replace(/^#\/?/, "").split("/");
  if (inbox && session.token && (section === "inbox" || section === "")) return inbox.open(id);
  cleanup?.();
  cleanup = undefined;
  inbox = undefined;
  app.removeAttribute("aria-busy");
  if (!session.token) {
    ctx.live.stop();
    shell?.dispose();
    shell = undefined;
    if (!AUTH_SECTIONS.has(section)) {
      rememberRoute();
      return void (location.hash = "#/login");
    }
    document.title = section === "register" ? "Create an account · botinbox" : "Log in · botinbox";
    const invited = INVITE.test(afterLogin ?? "") ? "Log in, or create an account with the e-mail address the invite was sent to, to join the team." : undefined;
    replace(app, authView(section, (landing) => {
      location.hash = afterLogin ?? landing;
      afterLogin = undefined;
    }, invited));
    return;
  }
  if (!shell) {
    shell = buildShell();
    replace(app, shell.root);
  }
  ctx.live.start();
  const current = section === "bots" || section === "account" ? section : "inbox";
  for (const [name, link] of shell.links) {
    if (name === current) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
  shell.main.replaceChildren();
  const invite = INVITE.exec(location.hash);
  if (invite) {
    cleanup = inviteView(shell.main, invite[1]!, () => (location.hash = "#/inbox"));
  } else if (section === "account") {
    cleanup = accountView(shell.main, logout);
  } else if (section === "bots") {
    cleanup = id ? botCardView(shell.main, id, ctx) : botsView(shell.main);
  } else if (section === "inbox" || section === "") {
    const view = (inbox = inboxView(shell.main, id, ctx));
    cleanup = () => view.close();
  } else {
    location.hash = "#/inbox";
  }
}

window.addEventListener("hashchange", render);
followNotificationClicks();
render();
