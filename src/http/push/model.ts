import { t } from "elysia";
import { MAX_URL_LENGTH } from "../bots/model.ts";

const Base64Url = (description: string) => t.String({ pattern: "^[A-Za-z0-9_-]+={0,2}$", maxLength: 200, description });

export const PushSubscriptionRequest = t.Object(
  {
    endpoint: t.String({ format: "uri", maxLength: MAX_URL_LENGTH, description: "The push service URL the browser gave" }),
    keys: t.Object({
      p256dh: Base64Url("The browser's P-256 public key (65 bytes, base64url)"),
      auth: Base64Url("The browser's auth secret (16 bytes, base64url)"),
    }),
  },
  { title: "PushSubscriptionRequest", examples: [{"endpoint": "https://fcm.googleapis.com/fcm/send/abc123", "keys": {"p256dh": "BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYCA_0QTpQtUbVlUls0VJXg7A8u-Ts1XbjhazAkj7I99e8QcYP7DkM", "auth": "tBHItJI5svbpez7KI4CCXg"}}] },
);
export type PushSubscriptionRequest = typeof PushSubscriptionRequest.static;

export const PushEndpointRequest = t.Object(
  { endpoint: t.String({ minLength: 1, maxLength: MAX_URL_LENGTH }) },
  { examples: [{ endpoint: "https://fcm.googleapis.com/fcm/send/abc123" }] },
);

export const PushSubscription = t.Object(
  { id: t.String({ format: "uuid" }), endpoint: t.String(), created_at: t.String({ format: "date-time" }) },
  { title: "PushSubscription", examples: [{"id": "7e8f9a0b-1c2d-4e3f-8a4b-5c6d7e8f9a0b", "endpoint": "https://fcm.googleapis.com/fcm/send/abc123", "created_at": "2026-01-01T09:30:00.000Z"}] },
);
export type PushSubscription = typeof PushSubscription.static;

export const PushPublicKey = t.Object(
  { public_key: t.String({ description: "VAPID application server key (base64url)" }) },
  { examples: [{ public_key: "BEl62iUYgUivxIkv69yViEuiBIa-Ib9-SkvMeAtA3LFgDzkrxZJjSgSnfckjBJuBkr3qBUYIHBQFLXYp5Nksh8U" }] },
);
