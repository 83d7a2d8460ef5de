// The header's "Notifications" control: shows whether this browser gets push notifications
// and turns them on or off. Hidden where the browser has no Web Push.
import { h, toast } from "./dom.ts";
import { describePushError, disablePush, enablePush, NotificationsBlocked, pushState, pushSupported, type PushState } from "./push.ts";
import { isCabinetRoute, OPEN_ROUTE, type OpenRouteMessage } from "../sw/messages.ts";

const STATE_LABELS: Record<PushState | "busy", string> = { off: "Off", on: "On", blocked: "Blocked", error: "Error", busy: "…" };
const SVG_NS = "http://www.w3.org/2000/svg";
/** A bell outline (24 px grid); drawn inline, as the stylesheet loads nothing, not even data: URLs. */
const BELL_PATHS = ["M6 8a6 6 0 0 1 12 0c0 7 3 9 3 9H3s3-2 3-9", "M10.3 21a1.94 1.94 0 0 0 3.4 0"];

function bellIcon(): SVGSVGElement {
  const svg = document.createElementNS(SVG_NS, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("class", "bell");
  svg.setAttribute("aria-hidden", "true");
  for (const d of BELL_PATHS) {
    const path = document.createElementNS(SVG_NS, "path");
    path.setAttribute("d", d);
    svg.append(path);
  }
  return svg;
}

const BLOCKED_HINT = "Notifications are blocked for this site. Allow them in the browser's site settings, then try again.";

export interface NotificationsControl {
  root: HTMLElement | null;
  dispose(): void;
}

export function notificationsControl(): NotificationsControl {
  if (!pushSupported()) return { root: null, dispose: () => {} };
  let alive = true;
  let state: PushState = "off";
  const label = h("span", { class: "notify-state" });
  const button = h("button", {
    type: "button",
    class: "ghost small notify",
    onclick: () => void toggle(),
  }, bellIcon(), h("span", { class: "notify-name" }, "Notifications"), label);

  const show = (next: PushState | "busy", detail = "") => {
    if (!alive) return;
    if (next !== "busy") state = next;
    button.dataset.state = next;
    button.disabled = next === "busy";
    button.setAttribute("aria-pressed", String(state === "on"));
    label.textContent = STATE_LABELS[next];
    // The visible word "Notifications" is dropped on narrow screens; the name keeps it.
    button.setAttribute("aria-label", `Notifications: ${STATE_LABELS[next]}`);
    button.title = detail || (state === "on" ? "This browser shows a notification for each new message. Click to turn off." : "Get a notification in this browser for each new message.");
  };

  const fail = (err: unknown) => {
    const message = describePushError(err);
    if (err instanceof NotificationsBlocked) {
      const blocked = Notification.permission === "denied";
      show(blocked ? "blocked" : "off", blocked ? BLOCKED_HINT : message);
      toast(blocked ? BLOCKED_HINT : message, "error");
      return;
    }
    show("error", message);
    toast(message, "error");
  };

  async function toggle() {
    const turningOff = state === "on";
    show("busy");
    try {
      if (turningOff) await disablePush();
      else await enablePush();
      show(turningOff ? "off" : "on");
      toast(turningOff ? "Notifications turned off" : "Notifications turned on");
    } catch (err) {
      fail(err);
    }
  }

  show("busy");
  pushState().then(
    (current) => show(current, current === "blocked" ? BLOCKED_HINT : ""),
    (err: unknown) => show("error", describePushError(err)),
  );
  return { root: button, dispose: () => (alive = false) };
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
