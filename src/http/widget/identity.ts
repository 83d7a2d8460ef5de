// Verified widget visitors (domain/identity.ts): the owner's identity secret, and the check
// the widget makes of the user a site hands it before opening that user's chat.
import { t } from "elysia";
import type { Services } from "../../services.ts";
import { userAuth } from "../auth/plugin.ts";
import { BotIdParams } from "../bots/model.ts";
import { errors, Ok, ok } from "../envelope.ts";
import { feature } from "../feature.ts";
import { publicAccess } from "../public.ts";
import { IdentityFields, MAX_EXTERNAL_ID_LENGTH } from "../messages/model.ts";

const IdentitySecret = t.Object(
  {
    identity_secret: t.String({ description: "Sign each user id with it on your server: hex HMAC-SHA256(identity_secret, user id). Never put it in a page" }),
    rotated_at: t.String({ format: "date-time" }),
  },
  { title: "IdentitySecret", examples: [{ identity_secret: "Zk3uQ0c1mX8vJ2pL5sT9wY4bN7eR6aH1dF0gK3jM2qE", rotated_at: "2026-01-01T09:30:00.000Z" }] },
);

const IdentityQuery = t.Object({
  widget_key: t.Optional(t.String({ minLength: 1, maxLength: MAX_EXTERNAL_ID_LENGTH })),
  bot_id: t.Optional(t.String({ format: "uuid" })),
  ...IdentityFields,
});

const VerifiedVisitor = t.Object(
  {
    chat_id: t.String({ description: "The user's one chat: use it (with user_id and user_hash) on the history, stream, message and file calls" }),
    user_id: t.String(),
    verified: t.Literal(true),
  },
  { title: "VerifiedVisitor", examples: [{ chat_id: "verified:user-42", user_id: "user-42", verified: true }] },
);

const SECRET_DESCRIPTION =
  "A site that knows its logged-in user passes the widget data-user-id and data-user-hash = hex HMAC-SHA256(identity_secret, user id), computed on its server. " +
  "Such a user has one conversation on every device and a verified contact; a wrong hash is refused (401).";

export const identityRoutes = (services: Services) =>
  feature({ tags: ["Widget"] })
    .use(userAuth(services))
    .use(publicAccess(services))
    .get("/api/bots/:id/identity-secret", async ({ user, params }) => ok(await services.identity.secret(user, params.id)), {
      user: true,
      params: BotIdParams,
      response: { 200: Ok(IdentitySecret, "The bot's identity secret (made on first read)"), ...errors(401, { 403: "Only the bot's owner sees it" }, 404) },
      detail: { summary: "Read the bot's widget identity secret (owner)", description: SECRET_DESCRIPTION },
    })
    .post("/api/bots/:id/identity-secret/rotate", async ({ user, params }) => ok(await services.identity.rotate(user, params.id)), {
      user: true,
      params: BotIdParams,
      response: { 200: Ok(IdentitySecret, "The new secret: hashes signed with the old one are refused from now on"), ...errors(401, { 403: "Only the bot's owner rotates it" }, 404) },
      detail: { summary: "Rotate the bot's widget identity secret (owner)", description: `${SECRET_DESCRIPTION} Rotating refuses every hash made with the old secret at once.` },
    })
    .get("/api/widget/identity", async ({ publicBot, query }) => ok(await services.identity.check(publicBot, query)), {
      publicBot: { from: "query", limit: true, origin: true },
      query: IdentityQuery,
      response: {
        200: Ok(VerifiedVisitor, "The hash is right: the user's chat"),
        ...errors(400, { 401: "user_hash does not match user_id" }, { 403: "The page's Origin is not among the widget's allowed origins" }, 404, 429),
      },
      detail: {
        summary: "Check a verified visitor (the widget, before it opens their chat)",
        description:
          "No token: the widget_key (or bot_id) names the bot. The history, stream, message, button and file calls take the same user_id and user_hash; " +
          "a chat_id beginning with `verified:` is refused (401) without them.",
      },
    });
