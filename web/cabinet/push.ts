// Web Push for this browser: the service worker, the push service's subscription and its
// registration with the server (README, "Operator push notifications"). No DOM here.
import { api, ApiError, get, post, type PushPublicKey, type StoredPushSubscription } from "./api.ts";

/** At the root so its scope covers the whole cabinet. */
export const SERVICE_WORKER_URL = "/sw.js";
const SCOPE = "/";
/**
 * A browser without a reachable push service may never settle subscribe(); past this the
 * attempt is reported as failed instead of leaving the control busy for ever.
 */
export const SUBSCRIBE_TIMEOUT_MS = 20_000;

export type PushState = "off" | "on" | "blocked" | "error";

/** The operator refused (or had blocked) notifications for this site. */
export class NotificationsBlocked extends Error {}

export const pushSupported = () => "serviceWorker" in navigator && "PushManager" in window && "Notification" in window;

/** The server's VAPID key is base64url; subscribe() wants its bytes. */
export function base64UrlToBytes(text: string): Uint8Array<ArrayBuffer> {
  const base64 = text.replace(/=+$/, "").replace(/-/g, "+").replace(/_/g, "/");
  const raw = atob(base64.padEnd(Math.ceil(base64.length / 4) * 4, "="));
  return Uint8Array.from(raw, (c) => c.charCodeAt(0));
}

const sameBytes = (a: ArrayBuffer | null, b: Uint8Array) =>
  a !== null && a.byteLength === b.byteLength && new Uint8Array(a).every((byte, i) => byte === b[i]);

function withTimeout<T>(work: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(message)), ms)));
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

async function currentSubscription(): Promise<PushSubscription | null> {
  const registration = await navigator.serviceWorker.getRegistration(SCOPE);
  return (await registration?.pushManager.getSubscription()) ?? null;
}

/** "on" only when this browser is subscribed and the server has it for this user. */
export async function pushState(): Promise<PushState> {
  if (Notification.permission === "denied") return "blocked";
  if (Notification.permission !== "granted") return "off";
  const subscription = await currentSubscription();
  if (!subscription) return "off";
  // Another operator may have used this browser since, or the server dropped a failing one.
  const mine = await get<StoredPushSubscription[]>("/api/push/subscriptions");
  return mine.some((s) => s.endpoint === subscription.endpoint) ? "on" : "off";
}

export async function enablePush(): Promise<void> {
  const permission = await Notification.requestPermission();
  if (permission !== "granted") throw new NotificationsBlocked("Notifications are not allowed for this site.");
  await navigator.serviceWorker.register(SERVICE_WORKER_URL, { scope: SCOPE });
  // subscribe() needs an active worker; `ready` waits for the one just registered.
  const registration = await navigator.serviceWorker.ready;
  const { public_key } = await get<PushPublicKey>("/api/push/public-key");
  const key = base64UrlToBytes(public_key);
  let subscription = await registration.pushManager.getSubscription();
  if (subscription && !sameBytes(subscription.options.applicationServerKey, key)) {
    // Made for another server key: the push service would refuse our signatures.
    await subscription.unsubscribe();
    subscription = null;
  }
  subscription ??= await withTimeout(
    registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key }),
    SUBSCRIBE_TIMEOUT_MS,
    "The browser's push service did not answer.",
  );
  const { endpoint, keys } = subscription.toJSON();
  await post("/api/push/subscriptions", { endpoint, keys: { p256dh: keys?.p256dh, auth: keys?.auth } });
}

/**
 * The server forgets the subscription first, so a failure leaves everything as it was;
 * then the browser drops it. `token` lets logout use the token it is about to discard.
 */
export async function disablePush(token?: string): Promise<void> {
  const subscription = await currentSubscription();
  if (!subscription) return;
  await api("DELETE", "/api/push/subscriptions", { body: { endpoint: subscription.endpoint }, token }).catch((err: unknown) => {
    // Already gone on the server (moved to another user, or dropped as failing): fine.
    if (!(err instanceof ApiError && err.status === 404)) throw err;
  });
  await subscription.unsubscribe();
}

/** What went wrong, in words for the operator; DOMException messages are terse. */
export function describePushError(err: unknown): string {
  if (err instanceof ApiError || err instanceof NotificationsBlocked) return err.message;
  const name = err instanceof DOMException ? err.name : "";
  if (name === "NotAllowedError") return "Notifications are not allowed for this site.";
  if (name === "AbortError" || name === "NotSupportedError") return "The browser's push service is unavailable.";
  if (name === "InvalidStateError" || name === "SecurityError") return "This page cannot use notifications (it needs HTTPS).";
  return err instanceof Error && err.message ? err.message : "Notifications could not be changed.";
}
