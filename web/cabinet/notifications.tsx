// The header's "Notifications" control: shows whether this browser gets push notifications
// and turns them on or off. Hidden where the browser has no Web Push.
import { useEffect, useState } from "preact/hooks";
import { isCabinetRoute, OPEN_ROUTE, type OpenRouteMessage } from "../sw/messages.ts";
import { describePushError, disablePush, enablePush, NotificationsBlocked, pushState, type PushState } from "./push.ts";
import { toast } from "./ui.tsx";

const STATE_LABELS: Record<PushState | "busy", string> = { off: "Off", on: "On", blocked: "Blocked", error: "Error", busy: "…" };
/** A bell outline (24 px grid); drawn inline, as the stylesheet loads nothing, not even data: URLs. */
const BELL_PATHS = ["M6 8a6 6 0 0 1 12 0c0 7 3 9 3 9H3s3-2 3-9", "M10.3 21a1.94 1.94 0 0 0 3.4 0"];
const BLOCKED_HINT = "Notifications are blocked for this site. Allow them in the browser's site settings, then try again.";

/** What the control shows: the state, or busy while a change runs, with a hint. */
type Shown = { state: PushState; busy: boolean; detail: string };

export function NotificationsControl() {
  const [shown, setShown] = useState<Shown>({ state: "off", busy: true, detail: "" });
  useEffect(() => {
    let alive = true;
    pushState().then(
      (state) => alive && setShown({ state, busy: false, detail: state === "blocked" ? BLOCKED_HINT : "" }),
      (err: unknown) => alive && setShown({ state: "error", busy: false, detail: describePushError(err) }),
    );
    return () => void (alive = false);
  }, []);

  const fail = (err: unknown) => {
    const message = describePushError(err);
    if (err instanceof NotificationsBlocked) {
      const blocked = Notification.permission === "denied";
      setShown({ state: blocked ? "blocked" : "off", busy: false, detail: blocked ? BLOCKED_HINT : message });
      return toast(blocked ? BLOCKED_HINT : message, "error");
    }
    setShown({ state: "error", busy: false, detail: message });
    toast(message, "error");
  };
  const toggle = async () => {
    const turningOff = shown.state === "on";
    setShown({ ...shown, busy: true });
    try {
      if (turningOff) await disablePush();
      else await enablePush();
      setShown({ state: turningOff ? "off" : "on", busy: false, detail: "" });
      toast(turningOff ? "Notifications turned off" : "Notifications turned on");
    } catch (err) {
      fail(err);
    }
  };

  const label = STATE_LABELS[shown.busy ? "busy" : shown.state];
  const on = shown.state === "on";
  return (
    <button type="button" class="ghost small notify" data-state={shown.busy ? "busy" : shown.state} disabled={shown.busy}
      aria-pressed={on} aria-label={`Notifications: ${label}`} onClick={toggle}
      title={shown.detail || (on ? "This browser shows a notification for each new message. Click to turn off." : "Get a notification in this browser for each new message.")}>
      <svg viewBox="0 0 24 24" class="bell" aria-hidden="true">{BELL_PATHS.map((d) => <path key={d} d={d} />)}</svg>
      {/* The visible word is dropped on narrow screens; the accessible name keeps it. */}
      <span class="notify-name">Notifications</span>{" "}
      <span class="notify-state">{label}</span>
    </button>
  );
}

/**
 * A clicked notification asks an open cabinet tab (through its service worker) to open a
 * conversation; only cabinet routes are followed.
 */
export function followNotificationClicks(): void {
  if (!("serviceWorker" in navigator)) return;
  navigator.serviceWorker.addEventListener("message", (event: MessageEvent<OpenRouteMessage>) => {
    if (event.data?.type === OPEN_ROUTE && typeof event.data.hash === "string" && isCabinetRoute(event.data.hash)) {
      location.hash = event.data.hash;
    }
  });
  // Messages that arrived before this listener are held until now.
  navigator.serviceWorker.startMessages();
}
