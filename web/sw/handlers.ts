// The service worker's behaviour, written against the few parts of the worker scope it
// uses, so a test can run it with a fake scope (the DOM typings have no worker scope).
import { isCabinetRoute, OPEN_ROUTE, type OpenRouteMessage } from "./messages.ts";
import { answerFromShell, cacheShell, type OfflineScope } from "./offline.ts";

/** The push payload the push worker sends (src/push). Every field is checked: it is input. */
export interface PushPayload {
  title?: unknown;
  body?: unknown;
  conversation_id?: unknown;
  bot_id?: unknown;
  url?: unknown;
}

/** Shown when a payload cannot be read: `userVisibleOnly` promises a notification per push. */
export const FALLBACK_TITLE = "New message";
/** Where a notification without a usable url leads. */
export const FALLBACK_ROUTE = "#/inbox";

interface ExtendableEventLike {
  waitUntil(work: Promise<unknown>): void;
}
export interface PushEventLike extends ExtendableEventLike {
  data: { json(): unknown } | null;
}
export interface NotificationClickLike extends ExtendableEventLike {
  notification: { data: unknown; close(): void };
}
export interface WindowClientLike {
  url: string;
  focus(): Promise<unknown>;
  postMessage(message: OpenRouteMessage): void;
}
export interface WorkerScope extends OfflineScope {
  location: { origin: string };
  registration: { showNotification(title: string, options: NotificationOptions): Promise<void> };
  clients: {
    matchAll(options: { type: "window"; includeUncontrolled: boolean }): Promise<readonly WindowClientLike[]>;
    openWindow(url: string): Promise<unknown>;
    claim(): Promise<void>;
  };
  skipWaiting(): Promise<void>;
  addEventListener(type: string, listener: (event: any) => void): void;
}

const text = (value: unknown) => (typeof value === "string" ? value : "");

function readPayload(event: PushEventLike): PushPayload {
  try {
    const payload = event.data?.json();
    return payload && typeof payload === "object" ? (payload as PushPayload) : {};
  } catch {
    return {};
  }
}

export function showPush(scope: WorkerScope, event: PushEventLike): Promise<void> {
  const payload = readPayload(event);
  const options: NotificationOptions = { body: text(payload.body), data: { url: text(payload.url) } };
  // One notification per conversation: a newer message replaces the older one.
  const tag = text(payload.conversation_id);
  if (tag) options.tag = tag;
  return scope.registration.showNotification(text(payload.title) || FALLBACK_TITLE, options);
}

/**
 * The route a notification leads to. Only its hash is taken: the payload's url is built
 * from PUBLIC_URL, which may name another address than the one this cabinet runs at.
 */
export function routeOf(data: unknown): string {
  const url = text((data as { url?: unknown } | null)?.url);
  let hash = "";
  try {
    hash = new URL(url).hash;
  } catch {}
  return isCabinetRoute(hash) ? hash : FALLBACK_ROUTE;
}

/** Focus a cabinet tab already open (it follows the route itself), or open a new one there. */
export async function openRoute(scope: WorkerScope, hash: string): Promise<void> {
  const origin = scope.location.origin;
  const tabs = await scope.clients.matchAll({ type: "window", includeUncontrolled: true });
  const tab = tabs.find((client) => {
    try {
      const url = new URL(client.url);
      return url.origin === origin && url.pathname === "/";
    } catch {
      return false;
    }
  });
  if (tab) {
    tab.postMessage({ type: OPEN_ROUTE, hash });
    await tab.focus();
    return;
  }
  await scope.clients.openWindow(`${origin}/${hash}`);
}

export function listen(scope: WorkerScope): void {
  // A new version takes over at once: there is no state to hand over between versions.
  scope.addEventListener("install", (event: ExtendableEventLike) => {
    void scope.skipWaiting();
    event?.waitUntil?.(cacheShell(scope));
  });
  scope.addEventListener("fetch", (event) => answerFromShell(scope, event));
  scope.addEventListener("activate", (event: ExtendableEventLike) => event.waitUntil(scope.clients.claim()));
  scope.addEventListener("push", (event: PushEventLike) => event.waitUntil(showPush(scope, event)));
  scope.addEventListener("notificationclick", (event: NotificationClickLike) => {
    event.notification.close();
    event.waitUntil(openRoute(scope, routeOf(event.notification.data)));
  });
}
