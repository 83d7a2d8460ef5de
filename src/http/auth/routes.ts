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
        response: { 200: Ok(AuthResult), ...errors(400, 409, 413, 429) },
        detail: { summary: "Register a user (and log in)" },
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
        response: { 200: Ok(AuthResult), ...errors(400, 401, 429) },
        detail: { summary: "Log in" },
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
        response: { 200: Ok(AuthResult), ...errors(400, 401, 429) },
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
      response: { 200: Ok(User), ...errors(401) },
      detail: { summary: "Profile of the current user" },
    });
