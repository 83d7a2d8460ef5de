import { feature } from "../feature.ts";
import { Elysia } from "elysia";
import type { Services } from "../../services.ts";
import { errors, Ok, ok } from "../envelope.ts";
import { AuthRequest, AuthResult, PasswordChangeRequest, User } from "./model.ts";
import { userAuth } from "./plugin.ts";
import { clientIp } from "../client.ts";
import { newSessionClaims } from "../../domain/sessions.ts";
import { t } from "elysia";

export const authRoutes = (services: Services) =>
  feature({ prefix: "/api/auth", tags: ["Auth"] })
    .use(userAuth(services))
    .post(
      "/register",
      async ({ body, userJwt }) => {
        const user = await services.auth.register(body.email, body.password);
        const token = await userJwt.sign({ sub: user.id, typ: "user", ...newSessionClaims(0) });
        return ok({ token, token_type: "Bearer" as const, expires_in: services.config.jwtTtlSeconds, user });
      },
      {
        body: AuthRequest,
        response: { 200: Ok(AuthResult, "The new user and a user token (already logged in)"), ...errors(400, { 409: "This e-mail is registered already" }, 413, 429) },
        detail: {
          summary: "Register a user (and log in)",
          description: "Creates the account and answers with a user JWT for `Authorization: Bearer`, valid expires_in seconds (a week by default). Passwords: 6..256 characters.",
        },
      },
    )
    .post(
      "/login",
      async ({ body, userJwt, request }) => {
        const { user, passwordStamp } = await services.auth.login(body.email, body.password, clientIp(request));
        const token = await userJwt.sign({ sub: user.id, typ: "user", ...newSessionClaims(passwordStamp) });
        return ok({ token, token_type: "Bearer" as const, expires_in: services.config.jwtTtlSeconds, user });
      },
      {
        body: AuthRequest,
        response: { 200: Ok(AuthResult, "A fresh user token"), ...errors(400, { 401: "Wrong e-mail or password (which one is not said)" }, 429) },
        detail: {
          summary: "Log in",
          description: "Exchanges e-mail and password for a user JWT valid expires_in seconds. Attempts are limited per e-mail and per IP over 15 minutes (429 with retry_after).",
        },
      },
    )
    .post(
      "/password",
      async ({ user, body, userJwt }) => {
        // Streams opened with the old tokens end now, in every process.
        const { passwordStamp } = await services.auth.changePassword(user, body.current_password, body.new_password);
        const token = await userJwt.sign({ sub: user.id, typ: "user", ...newSessionClaims(passwordStamp) });
        return ok({ token, token_type: "Bearer" as const, expires_in: services.config.jwtTtlSeconds, user });
      },
      {
        user: true,
        body: PasswordChangeRequest,
        response: { 200: Ok(AuthResult, "A fresh user token; tokens issued before the change stop working"), ...errors(400, 401, 429) },
        detail: {
          summary: "Change the password",
          description:
            "Needs the current password (400 when wrong). Every token issued before the change stops working, on every " +
            "device; the answer carries a fresh token for this session.",
        },
      },
    )
    .post(
      "/logout",
      async ({ user, session }) => {
        await services.auth.logOut(user, session);
        return ok({ logged_out: true as const });
      },
      {
        user: true,
        response: { 200: Ok(t.Object({ logged_out: t.Literal(true) }), "This token no longer works anywhere; its open streams end"), ...errors(401) },
        detail: {
          summary: "Log out (revoke this token)",
          description:
            "Revokes the token the request carries, at once and on every process: later requests with it get 401 and the inbox streams it opened end. " +
            "Other sessions of the user stay (change the password to end them all).",
        },
      },
    )
    .get("/me", ({ user }) => ok(user), {
      user: true,
      response: { 200: Ok(User, "The user the token belongs to"), ...errors(401) },
      detail: { summary: "Profile of the current user", description: "Checks a stored user token and says whose it is." },
    });
