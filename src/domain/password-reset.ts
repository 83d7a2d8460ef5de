// Password reset by mail. A request answers the same, at the same speed, whether or not the
// address has an account: nothing that depends on the address runs on the request's path;
// the lookup, the token, its row and the mail are made afterwards, in the background. Only a hash of the token is
// stored; it works once, for an hour, and a reset voids every other link and every token
// issued under the old password.
import { badRequest } from "../core/errors.ts";
import type { Db } from "../db/driver.ts";
import { consumePasswordReset, insertPasswordReset, voidPasswordResets } from "../db/mail.ts";
import { findUserByEmail, findUserById, updatePassword } from "../db/users.ts";
import type { PlatformMailer } from "../delivery/mail/mailer.ts";
import type { Logger } from "../logger.ts";
import { hashToken, randomKey } from "../secrets.ts";
import { passwordStamp, toUser, type User } from "./accounts.ts";

/** Why: long enough to find the mail and click it, short enough that a leaked link dies soon. */
export const PASSWORD_RESET_TTL_MS = 3600 * 1000;
/** Why: 256 bits; the token is a bearer credential until used. */
const RESET_TOKEN_BYTES = 32;

export interface ResetDeps {
  db: Db;
  mailer: PlatformMailer;
  logger: Logger;
  publicUrl: string;
  now?: () => number;
}

/** Answers whether a mail can be sent at all (SMTP_URL); the same for every address. */
export function requestPasswordReset(deps: ResetDeps, email: string): boolean {
  if (!deps.mailer.configured) return false;
  // After the answer: it must not wait on the lookup, the insert or the mail server (timing).
  setTimeout(() => void issueReset(deps, email.trim()).catch((err) => deps.logger.warn({ err: String(err) }, "password reset not issued")), 0);
  return true;
}

async function issueReset(deps: ResetDeps, email: string): Promise<void> {
  const user = await findUserByEmail(deps.db, email);
  if (!user) return;
  const token = randomKey(RESET_TOKEN_BYTES);
  const now = deps.now?.() ?? Date.now();
  await insertPasswordReset(deps.db, hashToken(token), user.id, new Date(now + PASSWORD_RESET_TTL_MS));
  const link = `${deps.publicUrl}/#/reset?token=${token}`;
  deps.mailer.send(
    user.email,
    "Reset your botinbox password",
    [
      "Someone (hopefully you) asked to reset the password of your botinbox account.",
      "",
      `Choose a new password here within the next hour: ${link}`,
      "",
      "The link works once. If you did not ask for it, ignore this mail: your password stays as it is.",
    ].join("\n"),
  );
}

/** Sets the new password; answers the user, whose earlier tokens no longer work, and the new password stamp. */
export async function confirmPasswordReset(deps: ResetDeps, token: string, password: string): Promise<{ user: User; passwordStamp: number }> {
  const now = new Date(deps.now?.() ?? Date.now());
  const hash = await Bun.password.hash(password, { algorithm: "argon2id" });
  const user = await deps.db.transaction(async (tx) => {
    const userId = await consumePasswordReset(tx, hashToken(token), now);
    if (!userId) return undefined;
    await updatePassword(tx, userId, hash, now);
    await voidPasswordResets(tx, userId, now);
    return findUserById(tx, userId);
  });
  if (!user) throw badRequest("the reset link is invalid, used or expired: ask for a new one", "reset_token_invalid");
  return { user: toUser(user), passwordStamp: passwordStamp(user) };
}
