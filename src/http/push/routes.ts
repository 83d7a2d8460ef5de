import { t } from "elysia";
import type { Platform } from "../../platform.ts";
import { userAuth } from "../auth/plugin.ts";
import { errors, Ok, ok } from "../envelope.ts";
import { feature } from "../feature.ts";
import { PushEndpointRequest, PushPublicKey, PushSubscription, PushSubscriptionRequest } from "./model.ts";
import { publicKey, subscribe, subscriptions, unsubscribe } from "./service.ts";

export const pushRoutes = (platform: Platform) =>
  feature({ prefix: "/api/push", tags: ["Push"] })
    .use(userAuth(platform))
    .get("/public-key", async () => ok(await publicKey(platform)), {
      user: true,
      response: { 200: Ok(PushPublicKey), ...errors(401) },
      detail: { summary: "VAPID key a browser subscribes with" },
    })
    .get("/subscriptions", async ({ user }) => ok(await subscriptions(platform, user.id)), {
      user: true,
      response: { 200: Ok(t.Array(PushSubscription)), ...errors(401) },
      detail: { summary: "This user's push subscriptions" },
    })
    .post(
      "/subscriptions",
      async ({ user, body, set }) => {
        const created = await subscribe(platform, user.id, body);
        set.status = 201;
        return ok(created);
      },
      {
        user: true,
        body: PushSubscriptionRequest,
        response: { 201: Ok(PushSubscription), ...errors(400, 401) },
        detail: { summary: "Receive operator push notifications in this browser" },
      },
    )
    .delete("/subscriptions", async ({ user, body }) => ok(await unsubscribe(platform, user.id, body.endpoint)), {
      user: true,
      body: PushEndpointRequest,
      response: { 200: Ok(t.Literal(true)), ...errors(400, 401, 404) },
      detail: { summary: "Stop push notifications for a browser" },
    });
