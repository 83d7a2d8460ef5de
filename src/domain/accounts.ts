// Accounts: registration, login, password changes, and who a user token names.
import { badRequest, conflict, unauthorized } from "../core/errors.ts";
import type { Queryable } from "../db/driver.ts";
import { findUserByEmail, findUserById, insertUser, updatePassword, type DbUser } from "../db/users.ts";
import type { RateLimitSettings } from "../config.ts";
import { LOGIN_WINDOW_MS, type RateLimiter } from "../ratelimit.ts";

/** A user as the API shows it (http/auth/model.ts declares the same shape). */
export interface User {
  id: string;
  email: string;
  created_at: string;
}

/** Compared against when the email is unknown, so both failures cost the same time. */
const DUMMY_HASH = await Bun.password.hash("not-a-real-password", { algorithm: "argon2id" });

export const toUser = (row: Pick<DbUser, "id" | "email" | "created_at">): User => ({
  id: row.id,
  email: row.email,
  created_at: row.created_at.toISOString(),
});

export async function register(db: Queryable, email: string, password: string): Promise<User> {
  const hash = await Bun.password.hash(password, { algorithm: "argon2id" });
  const row = await insertUser(db, email.trim(), hash);
  if (!row) throw conflict("email is already registered");
  return toUser(row);
}

/**
 * The global per-e-mail backstop allows this many times the per-client limit: guessing spread
 * over many addresses is still slowed, while one noisy client cannot lock the owner out.
 */
export const LOGIN_BACKSTOP_FACTOR = 10;

/**
 * Attempts on one e-mail are counted per (e-mail, client), then against the slower global
 * backstop, before the password is checked; per-IP attempts are counted on arrival (http/guard.ts).
 */
export function limitLogin(limiter: RateLimiter, limits: RateLimitSettings, email: string, ip: string): void {
  const account = email.trim().toLowerCase();
  limiter.take(`login-email:${account}:${ip}`, limits.loginPerEmail, LOGIN_WINDOW_MS);
  limiter.take(`login-email:${account}`, limits.loginPerEmail * LOGIN_BACKSTOP_FACTOR, LOGIN_WINDOW_MS);
}

export async function login(db: Queryable, email: string, password: string): Promise<{ user: User; passwordStamp: number }> {
  const row = await findUserByEmail(db, email.trim());
  const matches = await Bun.password.verify(password, row?.password_hash ?? DUMMY_HASH);
  if (!row || !matches) throw unauthorized("wrong email or password");
  return { user: toUser(row), passwordStamp: passwordStamp(row) };
}

/**
 * Which password a token was issued under: every token carries it (claim `pwd`) and stops
 * working once the password changes, so a thief holding one is locked out. 0 = never changed.
 */
export const passwordStamp = (row: Pick<DbUser, "password_changed_at">): number => row.password_changed_at?.getTime() ?? 0;

export const issuedUnderCurrentPassword = (row: Pick<DbUser, "password_changed_at">, claim: unknown): boolean => (typeof claim === "number" ? claim : 0) === passwordStamp(row);

/** Checks the current password (attempts counted like logins, per user) and stores the new one. */
export async function changePassword(
  db: Queryable, limiter: RateLimiter, limits: RateLimitSettings, userId: string, current: string, next: string,
): Promise<{ user: User; passwordStamp: number }> {
  limiter.take(`password-change:${userId}`, limits.loginPerEmail, LOGIN_WINDOW_MS);
  const row = await findUserById(db, userId);
  if (!row || !(await Bun.password.verify(current, row.password_hash))) throw badRequest("current_password is wrong");
  const changedAt = new Date();
  await updatePassword(db, row.id, await Bun.password.hash(next, { algorithm: "argon2id" }), changedAt);
  return { user: toUser(row), passwordStamp: changedAt.getTime() };
}
