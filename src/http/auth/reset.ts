// Password reset by mail (docs/design.md §13.2).
import { t } from "elysia";
import type { Services } from "../../services.ts";
import { PASSWORD_RESET_TTL_MS } from "../../domain/password-reset.ts";
import { RESET_PER_EMAIL, RESET_PER_IP } from "../../domain/limits.ts";
import { newSessionClaims } from "../../domain/sessions.ts";
import { errors, Ok, ok } from "../envelope.ts";
import { feature } from "../feature.ts";
import { clientIp } from "../client.ts";
import { AuthResult, MAX_EMAIL_LENGTH, MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from "./model.ts";
import { userAuth } from "./plugin.ts";

const ResetRequest = t.Object(
  { email: t.String({ format: "email", maxLength: MAX_EMAIL_LENGTH }) },
  { title: "PasswordResetRequest", examples: [{ email: "owner@example.com" }] },
);
const ResetSent = t.Object(
  { sent: t.Boolean({ description: "true whenever this server sends mail, whether or not the address has an account; false only without SMTP_URL" }) },
  { title: "PasswordResetSent", examples: [{ sent: true }] },
);
const ResetAvailability = t.Object(
  { configured: t.Boolean({ description: "Whether this server sends mail (SMTP_URL is set)" }) },
  { title: "PasswordResetAvailability", examples: [{ configured: true }] },
);
const ResetConfirm = t.Object(
  {
    token: t.String({ minLength: 1, maxLength: 200, description: "The token from the mailed link" }),
    password: t.String({ minLength: MIN_PASSWORD_LENGTH, maxLength: MAX_PASSWORD_LENGTH }),
  },
  { title: "PasswordResetConfirm", examples: [{ token: "q1w2e3r4t5y6u7i8o9p0a1s2d3f4g5h6j7k8l9z0x1c", password: "n3w-secret" }] },
);

export const passwordResetRoutes = (services: Services) =>
  feature({ prefix: "/api/auth", tags: ["Auth"] })
    .use(userAuth(services))
    .get("/password-reset", () => ok({ configured: services.auth.resetByMail() }), {
      response: { 200: Ok(ResetAvailability, "Whether reset by mail can be asked for") },
      detail: { summary: "Is password reset by mail available?", description: "The login page asks this to offer \"Forgot password?\" or to say that reset by mail is not configured." },
    })
    .post(
      "/password-reset",
      async ({ body, request }) => ok({ sent: services.auth.requestReset(body.email, clientIp(request)) }),
      {
        body: ResetRequest,
        response: {
          200: Ok(ResetSent, "The same answer for every address: whether it has an account is never told"),
          ...errors(400, 429),
        },
        detail: {
          summary: "Ask for a password reset link by mail",
          description:
            `If the address has an account, a mail with a link \`<PUBLIC_URL>/#/reset?token=…\` is sent; the link works once, for ${PASSWORD_RESET_TTL_MS / 60_000} minutes. ` +
            `The answer and its timing are the same for every address; sent is false only when the server has no SMTP_URL. Limited to ${RESET_PER_EMAIL} requests per address and ${RESET_PER_IP} per IP an hour (429).`,
        },
      },
    )
    .post(
      "/password-reset/confirm",
      async ({ body, userJwt }) => {
        // Tokens issued under the old password stop working, and the streams they opened end now.
        const { user, passwordStamp } = await services.auth.confirmReset(body.token, body.password);
        const token = await userJwt.sign({ sub: user.id, typ: "user", ...newSessionClaims(passwordStamp) });
        return ok({ token, token_type: "Bearer" as const, expires_in: services.config.jwtTtlSeconds, user });
      },
      {
        body: ResetConfirm,
        response: { 200: Ok(AuthResult, "Logged in with the new password; tokens issued before it stop working"), ...errors({ 400: "The token is unknown, used or expired, or the password is too short" }, 429) },
        detail: { summary: "Set a new password with a reset token", description: "Uses the token (once), sets the password and answers as a login does." },
      },
    );
