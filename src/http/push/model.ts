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
  { title: "PushSubscriptionRequest" },
);
export type PushSubscriptionRequest = typeof PushSubscriptionRequest.static;

export const PushEndpointRequest = t.Object({ endpoint: t.String({ minLength: 1, maxLength: MAX_URL_LENGTH }) });

export const PushSubscription = t.Object(
  { id: t.String({ format: "uuid" }), endpoint: t.String(), created_at: t.String({ format: "date-time" }) },
  { title: "PushSubscription" },
);
export type PushSubscription = typeof PushSubscription.static;

export const PushPublicKey = t.Object({ public_key: t.String({ description: "VAPID application server key (base64url)" }) });
