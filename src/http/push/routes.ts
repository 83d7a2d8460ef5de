import { t } from "elysia";
import type { Services } from "../../services.ts";
import { userAuth } from "../auth/plugin.ts";
import { errors, Ok, ok, withExample } from "../envelope.ts";
import { feature } from "../feature.ts";
import { PushEndpointRequest, PushPublicKey, PushSubscription, PushSubscriptionRequest } from "./model.ts";

export const pushRoutes = (services: Services) =>
  feature({ prefix: "/api/push", tags: ["Push"] })
    .use(userAuth(services))
    .get("/public-key", async () => ok(await services.push.publicKey()), {
      user: true,
      response: { 200: Ok(PushPublicKey, "The server's VAPID public key"), ...errors(401) },
      detail: { summary: "VAPID key a browser subscribes with", description: "Pass it as applicationServerKey to PushManager.subscribe." },
    })
    .get("/subscriptions", async ({ user }) => ok(await services.push.subscriptions(user)), {
      user: true,
      response: { 200: Ok(t.Array(PushSubscription), "Every browser subscribed for this user") , ...errors(401) },
      detail: { summary: "This user's push subscriptions", description: "One entry per browser that asked for notifications about new visitor messages." },
    })
    .post(
      "/subscriptions",
      async ({ user, body, set }) => {
        const created = await services.push.subscribe(user, body);
        set.status = 201;
        return ok(created);
      },
      {
        user: true,
        body: PushSubscriptionRequest,
        response: { 201: Ok(PushSubscription, "Stored; a repeat of the same endpoint updates it"), ...errors(400, 401) },
        detail: { summary: "Receive operator push notifications in this browser", description: "Stores the browser's PushSubscription; new visitor messages of the user's bots are pushed to it." },
      },
    )
    .delete("/subscriptions", async ({ user, body }) => ok(await services.push.unsubscribe(user, body.endpoint)), {
      user: true,
      body: PushEndpointRequest,
      response: { 200: Ok(withExample(t.Literal(true), true), "The subscription is removed"), ...errors(400, 401, { 404: "No subscription with this endpoint for the user" }) },
      detail: { summary: "Stop push notifications for a browser", description: "Removes the subscription with this endpoint." },
    });
