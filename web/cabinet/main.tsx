// The cabinet: a hash-routed single page. #/login, #/register, #/bots, #/bots/<id>,
// #/inbox, #/inbox/<conversation id>, #/account, #/reports, #/forgot, #/reset?token= and #invite=<code> (an invite link). One
// live feed serves every view. A route asked for without a session (a notification's
// link, say) is opened after logging in.
import { signal } from "@preact/signals";
import { render, type ComponentChildren } from "preact";
import { useEffect } from "preact/hooks";
import { AccountView, InviteView } from "./account.tsx";
import { post, session, whenSessionExpires } from "./api.ts";
import { AuthView } from "./auth.tsx";
import { ForgotView, ResetView } from "./reset.tsx";
import { BotCardView } from "./botcard.tsx";
import { BotsView } from "./bots.tsx";
import { InboxView } from "./inbox.tsx";
import { ReportsView } from "./reports.tsx";
import { LiveFeed, type LiveState } from "./live.ts";
import { followNotificationClicks, NotificationsControl } from "./notifications.tsx";
import { disablePush, pushSupported } from "./push.ts";
import { toast, Toasts } from "./ui.tsx";
import { PresenceSwitch, watchPresence } from "./presence.tsx";

const configured = document.querySelector<HTMLMetaElement>('meta[name="botinbox-public-url"]')?.content ?? "";
/** Base URL for the embed snippet: PUBLIC_URL when configured, else this page's origin. */
const publicUrl = (configured && !configured.startsWith("%") ? configured : location.origin).replace(/\/+$/, "");
const live = new LiveFeed(() => expire());
watchPresence(live);

/** Changes with the hash; views read location.hash itself, which is never behind. */
const route = signal(location.hash);
window.addEventListener("hashchange", () => (route.value = location.hash));

/** The route to open once the operator has logged in. */
let afterLogin: string | undefined;
const AUTH_SECTIONS = new Set(["login", "register", "forgot", "reset"]);
const SECTIONS = new Set(["", "inbox", "bots", "account", "reports"]);
const INVITE = /^#invite=([\w-]+)/;
const parts = (hash: string) => hash.replace(/^#\/?/, "").split(/[/?]/);

function rememberRoute() {
  const section = parts(location.hash)[0];
  if (section && !AUTH_SECTIONS.has(section)) afterLogin = location.hash;
}

function expire() {
  rememberRoute();
  session.end();
  toast("Your session has ended. Please log in again.", "error");
  location.hash = "#/login";
}
whenSessionExpires(expire);

/**
 * Logging out also stops this browser's notifications: they show message text to whoever
 * uses it next. (An expired session keeps them: the operator did not ask to stop.)
 */
function logout() {
  const token = session.token;
  // The server revokes the token too (after push is off, which needs it): a copy of it stops working.
  const revoke = () => void (token && post("/api/auth/logout", undefined, token).catch(() => {}));
  if (token && pushSupported()) disablePush(token).catch(() => {}).finally(revoke);
  else revoke();
  session.end();
  location.hash = "#/login";
}

const LIVE_LABELS: Record<LiveState, string> = { live: "Live", connecting: "Connecting…", offline: "Offline, reconnecting…" };
const NAV = [["inbox", "Inbox"], ["bots", "Bots"], ["account", "Account"], ["reports", "Reports"]] as const;

function Shell({ current, children }: { current: string; children: ComponentChildren }) {
  const state = live.state.value;
  return (
    <div class="shell">
      <header class="topbar">
        <a class="brand" href="#/inbox"><span class="logo" aria-hidden="true">◆</span>botinbox</a>
        <nav aria-label="Main">
          {NAV.map(([name, label]) => <a key={name} href={`#/${name}`} aria-current={name === current ? "page" : undefined}>{label}</a>)}
        </nav>
        <div class="topbar-end">
          <PresenceSwitch />
          <span class={`live-state ${state}`} role="status">{LIVE_LABELS[state]}</span>
          {pushSupported() && <NotificationsControl />}
          <a class="api-link" href="/swagger" target="_blank" rel="noopener" title="API reference">API</a>
          <span class="who">{session.email}</span>
          <button type="button" class="ghost small logout" onClick={logout}>Log out</button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>{children}</main>
    </div>
  );
}

function Routes() {
  void route.value;
  void session.changes;
  const hash = location.hash;
  const signedIn = Boolean(session.token);
  const [section = "", id] = parts(hash);
  const invite = INVITE.exec(hash);

  // Redirects and the live feed follow the route and the session.
  useEffect(() => {
    const [now = ""] = parts(location.hash);
    if (!session.token) {
      live.stop();
      if (!AUTH_SECTIONS.has(now)) {
        rememberRoute();
        location.hash = "#/login";
      }
      return;
    }
    live.start();
    if (!INVITE.test(location.hash) && !SECTIONS.has(now)) location.hash = "#/inbox";
  }, [hash, signedIn]);

  if (!signedIn) {
    if (!AUTH_SECTIONS.has(section)) return null;
    if (section === "forgot") return <ForgotView />;
    if (section === "reset") {
      const token = new URLSearchParams(hash.split("?")[1] ?? "").get("token") ?? "";
      return <ResetView token={token} done={() => (location.hash = "#/inbox")} />;
    }
    const note = INVITE.test(afterLogin ?? "") ? "Log in, or create an account with the e-mail address the invite was sent to, to join the team." : undefined;
    const done = (landing: string) => {
      location.hash = afterLogin ?? landing;
      afterLogin = undefined;
    };
    return <AuthView mode={section} done={done} note={note} />;
  }
  const current = section === "bots" || section === "account" || section === "reports" ? section : "inbox";
  let view = null;
  if (invite) view = <InviteView code={invite[1]!} done={() => (location.hash = "#/inbox")} />;
  else if (section === "account") view = <AccountView logout={logout} />;
  else if (section === "reports") view = <ReportsView />;
  else if (section === "bots") view = id ? <BotCardView key={id} id={id} publicUrl={publicUrl} /> : <BotsView />;
  else if (section === "inbox" || section === "") view = <InboxView openId={id} live={live} />;
  return <Shell current={current}>{view}</Shell>;
}

const app = document.getElementById("app")!;
app.removeAttribute("aria-busy");
render(<><Routes /><Toasts /></>, app);
followNotificationClicks();
