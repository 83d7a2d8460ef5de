// Teams: who may see and work a bot. Every user-token endpoint that names a bot or one of its
// conversations asks here (requireMember, requireMemberConversation) and nowhere else, so a
// non-member always meets the same 404 and an operator the same 403 on owner-only things.
import { badRequest, conflict, forbidden, notFound } from "../core/errors.ts";
import { userEventsSubject } from "../core/subjects.ts";
import type { UserEvent } from "../core/events.ts";
import type { EventBus } from "../bus/bus.ts";
import type { Db, Queryable } from "../db/driver.ts";
import type { DbConversation } from "../db/conversations.ts";
import {
  countMembers, deleteInvite, deleteOperator, findMember, findMemberBot, findMemberConversation, findPendingInviteForUpdate, insertInvite, insertMember,
  listMembers, listPendingInvites, markInviteAccepted, type DbInvite, type DbMember, type DbMemberBot, type MemberRole,
} from "../db/members.ts";
import { findUserById } from "../db/users.ts";
import { hashToken, randomKey } from "../secrets.ts";
import type { PlatformMailer } from "../delivery/mail/mailer.ts";
import { mailInvite } from "./invite-mail.ts";
import { presencesOf, type PresenceStatus } from "./presence.ts";

export type { MemberRole };

/** Why: the owner shares the code by hand; a week covers a holiday without leaving codes valid for ever. */
export const INVITE_TTL_MS = 7 * 24 * 3600_000;
/** Why: a support team, not a crowd: bounds the member list and the stream's per-event filtering. */
export const MAX_MEMBERS_PER_BOT = 50;
/** Why: pending codes are secrets at rest (hashed); no real team needs more outstanding at once. */
export const MAX_PENDING_INVITES_PER_BOT = 50;
/** 18 random bytes → 24 url-safe characters: unguessable, still easy to paste. */
const INVITE_CODE_BYTES = 18;

export const OWNER_ONLY = "only the bot's owner can do this";

/**
 * The bot if `userId` is a member (with their role); a non-member gets 404 exactly like an
 * unknown bot, so existence never leaks across tenants. With `role: "owner"` an operator gets 403.
 */
export async function requireMember(db: Queryable, userId: string, botId: string, role?: "owner"): Promise<DbMemberBot> {
  const bot = await findMemberBot(db, botId, userId);
  if (!bot) throw notFound("bot");
  if (role === "owner" && bot.role !== "owner") throw forbidden(OWNER_ONLY);
  return bot;
}

/** The conversation if `userId` is a member of its bot; 404 like an unknown one otherwise. */
export async function requireMemberConversation(db: Queryable, userId: string, conversationId: string): Promise<DbConversation> {
  const row = await findMemberConversation(db, conversationId, userId);
  if (!row) throw notFound("conversation");
  return row;
}

/** Tells the user's open inbox streams to re-read their bots (and the cabinet to reload the list). */
export async function announceBotsChanged(bus: EventBus, userIds: string[], botId: string): Promise<void> {
  await Promise.all(userIds.map((userId) => {
    const event: UserEvent = { kind: "bots_changed", user_id: userId, bot_id: botId };
    return bus.publish(userEventsSubject(userId), event);
  }));
}

type TeamDeps = { db: Db; bus: EventBus };

/** A member and a pending invite as the owner sees them (http/bots/model.ts declares the same shapes). */
export interface Member {
  user_id: string;
  email: string;
  role: MemberRole;
  joined_at: string;
  presence: PresenceStatus;
}
export interface Invite {
  id: string;
  email: string;
  role: DbInvite["role"];
  created_at: string;
  expires_at: string;
}

const toMember = (row: DbMember, presence: Map<string, PresenceStatus>): Member => ({
  user_id: row.user_id, email: row.email, role: row.role, joined_at: row.created_at.toISOString(), presence: presence.get(row.user_id) ?? "offline",
});
const toInvite = (row: DbInvite): Invite => ({
  id: row.id, email: row.email, role: row.role, created_at: row.created_at.toISOString(), expires_at: row.expires_at.toISOString(),
});

export async function membersOf(db: Queryable, userId: string, botId: string): Promise<Member[]> {
  const bot = await requireMember(db, userId, botId, "owner");
  const rows = await listMembers(db, bot.id);
  const presence = await presencesOf(db, rows.map((r) => r.user_id));
  return rows.map((row) => toMember(row, presence));
}

/**
 * Who a conversation of the bot can be assigned to, for any member (an operator hands a chat
 * to a colleague); team administration (join dates, removal, invites) stays the owner's.
 */
export async function assigneesOfBot(
  db: Queryable, userId: string, botId: string,
): Promise<(Pick<DbMember, "user_id" | "email" | "role"> & { presence: PresenceStatus })[]> {
  const bot = await requireMember(db, userId, botId);
  const members = await listMembers(db, bot.id);
  const presence = await presencesOf(db, members.map((m) => m.user_id));
  const byEmail = (a: DbMember, b: DbMember) => a.email.toLowerCase().localeCompare(b.email.toLowerCase());
  return members
    .sort((a, b) => Number(b.role === "owner") - Number(a.role === "owner") || byEmail(a, b))
    .map(({ user_id, email, role }) => ({ user_id, email, role, presence: presence.get(user_id) ?? "offline" }));
}

export async function removeMember(deps: TeamDeps, userId: string, botId: string, memberId: string): Promise<true> {
  const bot = await requireMember(deps.db, userId, botId, "owner");
  const member = await findMember(deps.db, bot.id, memberId);
  if (!member) throw notFound("member");
  if (member.role === "owner") throw badRequest("the bot's owner cannot be removed");
  if (!(await deps.db.transaction((tx) => deleteOperator(tx, bot.id, memberId)))) throw notFound("member");
  // Committed; a lost notice only delays the cabinet's refresh (its stream filters by membership on reconnect).
  await announceBotsChanged(deps.bus, [memberId], bot.id).catch(() => undefined);
  return true;
}

export interface CreatedInvite extends Invite {
  /** The one-time code; only its hash is stored. */
  code: string;
  /** The cabinet link that accepts it. */
  invite_url: string;
  /** Whether the link was mailed to the invitee (the server sends mail). */
  mailed: boolean;
}

/** Owner only; the link is mailed to the invitee in the inviter's name when the server sends mail. */
export async function createInvite(
  deps: { db: Queryable; publicUrl: string; mailer: PlatformMailer }, inviter: { id: string; email: string }, botId: string, email: string,
): Promise<CreatedInvite> {
  const { db } = deps;
  const userId = inviter.id;
  const bot = await requireMember(db, userId, botId, "owner");
  const address = email.trim();
  const existing = (await listMembers(db, bot.id)).find((m) => m.email.toLowerCase() === address.toLowerCase());
  if (existing) throw conflict("this user is already a member of the bot");
  if ((await listPendingInvites(db, bot.id)).length >= MAX_PENDING_INVITES_PER_BOT) {
    throw badRequest(`a bot may have at most ${MAX_PENDING_INVITES_PER_BOT} pending invites`);
  }
  const code = randomKey(INVITE_CODE_BYTES);
  const invite = await insertInvite(db, {
    botId: bot.id, email: address, role: "operator", codeHash: hashToken(code), invitedBy: userId, expiresAt: new Date(Date.now() + INVITE_TTL_MS),
  });
  const inviteUrl = `${deps.publicUrl}/#invite=${code}`;
  const mailed = mailInvite(deps.mailer, invite.email, inviter.email, inviteUrl);
  return { ...toInvite(invite), code, invite_url: inviteUrl, mailed };
}

export async function pendingInvites(db: Queryable, userId: string, botId: string): Promise<Invite[]> {
  const bot = await requireMember(db, userId, botId, "owner");
  return (await listPendingInvites(db, bot.id)).map(toInvite);
}

export async function revokeInvite(db: Queryable, userId: string, botId: string, inviteId: string): Promise<true> {
  const bot = await requireMember(db, userId, botId, "owner");
  if (!(await deleteInvite(db, bot.id, inviteId))) throw notFound("invite");
  return true;
}

/** Joins the invite's bot. The code is the secret; the e-mail must also be the invitee's own. */
export async function acceptInvite(
  deps: TeamDeps, userId: string, code: string,
): Promise<{ bot_id: string; bot_name: string; role: MemberRole }> {
  const user = await findUserById(deps.db, userId);
  if (!user) throw notFound("invite");
  const joined = await deps.db.transaction(async (tx) => {
    const invite = await findPendingInviteForUpdate(tx, hashToken(code.trim()));
    if (!invite) throw notFound("invite");
    if (invite.email.toLowerCase() !== user.email.toLowerCase()) throw forbidden("this invite was sent to another e-mail address");
    if ((await countMembers(tx, invite.bot_id)) >= MAX_MEMBERS_PER_BOT) throw badRequest(`a bot may have at most ${MAX_MEMBERS_PER_BOT} members`);
    await insertMember(tx, invite.bot_id, userId, invite.role);
    await markInviteAccepted(tx, invite.id, userId);
    const bot = await findMemberBot(tx, invite.bot_id, userId);
    return { bot_id: invite.bot_id, bot_name: bot!.name, role: bot!.role };
  });
  await announceBotsChanged(deps.bus, [userId], joined.bot_id).catch(() => undefined);
  return joined;
}
