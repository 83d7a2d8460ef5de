// Sends one Web Push message. web-push builds the request (VAPID JWT, aes128gcm payload
// encryption); we send it ourselves so the SSRF guard, the timeout and http endpoints in
// tests are under our control, and so the request goes to the very address the guard checked
// (a second lookup would let a rebound name reach a private address).
import type { DbPushSubscription } from "../db/push.ts";
import { pinnedRequest, resolveTarget, type CheckedTarget, type UrlPolicy } from "./ssrf.ts";
import type { VapidKeys } from "./vapid.ts";

/** A push service answers in well under a second; a hung one must not hold the worker. */
export const PUSH_TIMEOUT_MS = 10_000;
/** Push services keep an undelivered notification this long; older news is noise. */
export const PUSH_TTL_SECONDS = 3600;

export type PushOutcome = "delivered" | "gone" | "failed";

export interface PushPayload {
  title: string;
  body: string;
  conversation_id: string;
  bot_id: string;
  url: string;
}

export async function sendPush(
  subscription: Pick<DbPushSubscription, "endpoint" | "p256dh" | "auth">,
  payload: PushPayload,
  vapid: VapidKeys,
  subject: string,
  policy: UrlPolicy,
): Promise<{ outcome: PushOutcome; status: number | null; error?: string }> {
  let target: CheckedTarget;
  try {
    target = await resolveTarget(subscription.endpoint, policy);
  } catch (err) {
    return { outcome: "gone", status: null, error: (err as Error).message };
  }
  // Loaded on first push: web-push and its crypto libraries stay out of an idle process's memory.
  const { default: webPush } = await import("web-push");
  const request = webPush.generateRequestDetails(
    { endpoint: subscription.endpoint, keys: { p256dh: subscription.p256dh, auth: subscription.auth } },
    JSON.stringify(payload),
    {
      TTL: PUSH_TTL_SECONDS,
      vapidDetails: { subject, publicKey: vapid.publicKey, privateKey: vapid.privateKey },
      topic: payload.conversation_id.replace(/-/g, "").slice(0, 32),
    },
  );
  try {
    const pinned = pinnedRequest({ url: new URL(request.endpoint), addresses: target.addresses });
    const res = await fetch(pinned.url, {
      method: request.method,
      headers: { ...(request.headers as Record<string, string>), ...pinned.headers },
      tls: pinned.tls,
      body: new Uint8Array(request.body as Buffer),
      redirect: "manual",
      signal: AbortSignal.timeout(PUSH_TIMEOUT_MS),
    });
    await res.arrayBuffer().catch(() => undefined);
    if (res.status >= 200 && res.status < 300) return { outcome: "delivered", status: res.status };
    // 404 and 410 are the push service saying the subscription no longer exists.
    if (res.status === 404 || res.status === 410) return { outcome: "gone", status: res.status };
    return { outcome: "failed", status: res.status, error: `push service answered ${res.status}` };
  } catch (err) {
    return { outcome: "failed", status: null, error: (err as Error).message };
  }
}
