import { t } from "elysia";

/** Spec 2.1 only says "minimum length 6"; the upper bound stops hashing megabytes. */
export const MIN_PASSWORD_LENGTH = 6;
export const MAX_PASSWORD_LENGTH = 256;
/** RFC 5321's practical maximum for an address. */
export const MAX_EMAIL_LENGTH = 254;

export const AuthRequest = t.Object(
  {
    email: t.String({ format: "email", maxLength: MAX_EMAIL_LENGTH, examples: ["owner@example.com"] }),
    password: t.String({ minLength: MIN_PASSWORD_LENGTH, maxLength: MAX_PASSWORD_LENGTH, examples: ["secret123"] }),
  },
  { title: "AuthRequest" },
);
export type AuthRequest = typeof AuthRequest.static;

export const User = t.Object(
  { id: t.String({ format: "uuid" }), email: t.String(), created_at: t.String({ format: "date-time" }) },
  { title: "User" },
);
export type User = typeof User.static;

export const AuthResult = t.Object(
  {
    token: t.String({ description: "User JWT for `Authorization: Bearer`" }),
    token_type: t.Literal("Bearer"),
    expires_in: t.Integer({ description: "Seconds until the token expires" }),
    user: User,
  },
  { title: "AuthResult" },
);
export type AuthResult = typeof AuthResult.static;

export const PasswordChangeRequest = t.Object(
  {
    current_password: t.String({ minLength: 1, maxLength: MAX_PASSWORD_LENGTH }),
    new_password: t.String({ minLength: MIN_PASSWORD_LENGTH, maxLength: MAX_PASSWORD_LENGTH }),
  },
  { title: "PasswordChangeRequest", examples: [{ current_password: "old-secret", new_password: "n3w-secret" }] },
);
