import { feature } from "../feature.ts";
import { Elysia } from "elysia";
import type { Platform } from "../../platform.ts";
import { errors, Ok, ok } from "../envelope.ts";
import { AuthRequest, AuthResult, PasswordChangeRequest, User } from "./model.ts";
import { userAuth } from "./plugin.ts";
import { changePassword, limitLogin, login, register } from "./service.ts";
import { clientIp } from "../client.ts";

export const authRoutes = (platform: Platform) =>
  feature({ prefix: "/api/auth", tags: ["Auth"] })
    .use(userAuth(platform))
    .post(
      "/register",
      async ({ body, userJwt }) => {
        const user = await register(platform.db, body.email, body.password);
        const token = await userJwt.sign({ sub: user.id, typ: "user", pwd: 0 });
        return ok({ token, token_type: "Bearer" as const, expires_in: platform.config.jwtTtlSeconds, user });
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
        limitLogin(platform.limiter, platform.config.limits, body.email, clientIp(request));
        const { user, passwordStamp } = await login(platform.db, body.email, body.password);
        const token = await userJwt.sign({ sub: user.id, typ: "user", pwd: passwordStamp });
        return ok({ token, token_type: "Bearer" as const, expires_in: platform.config.jwtTtlSeconds, user });
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
        const { passwordStamp } = await changePassword(
          platform.db, platform.limiter, platform.config.limits, user.id, body.current_password, body.new_password,
        );
        const token = await userJwt.sign({ sub: user.id, typ: "user", pwd: passwordStamp });
        return ok({ token, token_type: "Bearer" as const, expires_in: platform.config.jwtTtlSeconds, user });
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
    .get("/me", ({ user }) => ok(user), {
      user: true,
      response: { 200: Ok(User, "The user the token belongs to"), ...errors(401) },
      detail: { summary: "Profile of the current user", description: "Checks a stored user token and says whose it is." },
    });
