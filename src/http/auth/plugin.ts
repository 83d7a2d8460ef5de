import { feature } from "../feature.ts";
import { jwt } from "@elysiajs/jwt";
import { Elysia } from "elysia";
import { unauthorized } from "../../core/errors.ts";
import type { Services } from "../../services.ts";
import { claimsOf, type SessionClaims } from "../../domain/sessions.ts";
import { isApiToken } from "../../domain/api_tokens.ts";
import { requestPath } from "../paths.ts";

export const USER_SECURITY = [{ userBearerAuth: [] }];

/** The one algorithm we sign with; accepting others (HS512, none) widens what a forger can try. */
const JWT_ALGORITHMS = ["HS256"];
/** Tokens without `exp` would never die; every token we issue has one. */
const JWT_REQUIRED_CLAIMS = ["exp", "sub"];
/** A `sub` that is not a UUID was not issued by us, and must not reach a uuid column as a 500. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function bearerToken(header: string | undefined): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? "");
  return match?.[1];
}

/**
 * Signs user tokens and gives routes `{ user: true }`, which resolves the caller from
 * `Authorization: Bearer <JWT>` or answers 401.
 */
export const userAuth = (services: Services) =>
  feature({ name: "user-auth", seed: services.id })
    .use(jwt({ name: "userJwt", secret: services.auth.tokenKey, alg: "HS256", exp: `${services.config.jwtTtlSeconds}s` }))
    .macro({
      user: {
        detail: { security: USER_SECURITY },
        async resolve({ headers, userJwt, request }) {
          const token = bearerToken(headers.authorization);
          if (!token) throw unauthorized("missing user token: send Authorization: Bearer <token>");
          if (isApiToken(token)) {
            // A personal API token: looked up on every request, within its scopes (403 outside them).
            const found = await services.tokens.userOf(token, request.method, requestPath(request));
            const session: SessionClaims = {
              jti: null, pwd: null, exp: found.expiresAt ? Math.floor(found.expiresAt.getTime() / 1000) : 0, apiTokenId: found.tokenId,
            };
            return { user: found.user, session };
          }
          const payload = await userJwt.verify(token, { algorithms: JWT_ALGORITHMS, requiredClaims: JWT_REQUIRED_CLAIMS });
          if (!payload || typeof payload.sub !== "string" || !UUID.test(payload.sub) || payload.typ !== "user") {
            throw unauthorized("invalid or expired user token");
          }
          const session = claimsOf(payload);
          const user = await services.auth.userOfSession(payload.sub, session);
          if (!user) throw unauthorized("invalid or expired user token", "session_revoked");
          return { user, session };
        },
      },
    });
