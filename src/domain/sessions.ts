// A user token stays good only while its password is the current one and it was not logged
// out. Checked on every request, and again by what a token keeps open (the inbox stream):
// a revocation is announced on the bus to end those at once, and they re-check on their own
// now and then in case the announcement was lost.
import { randomUUID } from "node:crypto";
import { unauthorized } from "../core/errors.ts";
import { userEventsSubject } from "../core/subjects.ts";
import type { UserEvent } from "../core/events.ts";
import type { EventBus } from "../bus/bus.ts";
import type { Queryable } from "../db/driver.ts";
import { findUserSession, revokeToken, type DbUserSession } from "../db/sessions.ts";
import { issuedUnderCurrentPassword, toUser, type User } from "./accounts.ts";

/** What a request's token said about its session. */
export interface SessionClaims {
  /** Token id; absent on tokens issued before log-out existed (they end with the password or their lifetime). */
  jti: string | null;
  pwd: unknown;
  /** Expiry, Unix seconds. */
  exp: number;
  /** Set when the caller used a personal API token instead of a login: its id. */
  apiTokenId?: string;
}

/** The claims a new token carries besides sub/typ. */
export const newSessionClaims = (passwordStamp: number) => ({ pwd: passwordStamp, jti: randomUUID() });

export const claimsOf = (payload: Record<string, unknown>): SessionClaims => ({
  jti: typeof payload.jti === "string" ? payload.jti : null,
  pwd: payload.pwd,
  exp: typeof payload.exp === "number" ? payload.exp : 0,
});

/** The user while the session holds, else undefined. */
export async function liveSession(db: Queryable, userId: string, claims: SessionClaims): Promise<DbUserSession | undefined> {
  const row = await findUserSession(db, userId, claims.jti);
  if (!row || row.revoked || !issuedUnderCurrentPassword(row, claims.pwd) || claims.exp * 1000 <= Date.now()) return undefined;
  return row;
}

/** The user a verified token names, while its session holds. */
export async function userOfSession(db: Queryable, userId: string, claims: SessionClaims): Promise<User | undefined> {
  const row = await liveSession(db, userId, claims);
  return row && toUser(row);
}

/** Tells every process that this user's sessions changed: what a token keeps open re-checks it now. */
export async function announceRevocation(bus: EventBus, userId: string): Promise<void> {
  const event: UserEvent = { kind: "session_revoked", user_id: userId };
  await bus.publish(userEventsSubject(userId), event).catch(() => undefined);
}

/** Log-out: this token stops working everywhere at once. */
export async function logOut(db: Queryable, bus: EventBus, userId: string, claims: SessionClaims): Promise<void> {
  if (!claims.jti) throw unauthorized("this token predates log-out; change the password to end it", "session_revoked");
  await revokeToken(db, userId, claims.jti, new Date(claims.exp * 1000));
  await announceRevocation(bus, userId);
}
