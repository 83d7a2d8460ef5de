// Bot members and invites (sql/120_bot_members.sql).
import type { DbBot } from "./bots.ts";
import { CONVERSATION_COLUMNS, type DbConversation } from "./conversations.ts";
import type { Queryable } from "./driver.ts";

export type MemberRole = "owner" | "operator";

export interface DbMember {
  bot_id: string;
  user_id: string;
  email: string;
  role: MemberRole;
  created_at: Date;
}

export type DbMemberBot = DbBot & { role: MemberRole };

const BOT_COLUMNS = `b.id, b.owner_id, b.number, b.name, b.username, b.description, b.webhook_url, b.token_hash,
  b.token_encrypted, b.widget_key, b.integration_key, b.created_at, b.updated_at`;

/** Messages the bot had before the member joined are not unread for them (read_floor). */
export async function insertMember(db: Queryable, botId: string, userId: string, role: MemberRole): Promise<boolean> {
  const rows = await db.query(
    `insert into bot_members (bot_id, user_id, role, read_floor)
     select $1, $2, $3, b.last_message_id from bots b where b.id = $1
     on conflict do nothing returning 1`,
    [botId, userId, role],
  );
  return rows.length > 0;
}

/** The bot with the user's role on it, or undefined when the user is not a member. */
export async function findMemberBot(db: Queryable, botId: string, userId: string): Promise<DbMemberBot | undefined> {
  const rows = await db.query<DbMemberBot>(
    `select ${BOT_COLUMNS}, m.role from bot_members m join bots b on b.id = m.bot_id where m.bot_id = $1 and m.user_id = $2`,
    [botId, userId],
  );
  return rows[0];
}

/** The conversation when the user is a member of its bot, in one query. */
export async function findMemberConversation(db: Queryable, conversationId: string, userId: string): Promise<DbConversation | undefined> {
  const rows = await db.query<DbConversation>(
    `select ${CONVERSATION_COLUMNS} from conversations c
     where c.id = $1 and exists (select 1 from bot_members m where m.bot_id = c.bot_id and m.user_id = $2)`,
    [conversationId, userId],
  );
  return rows[0];
}

export async function listMemberBots(db: Queryable, userId: string): Promise<DbMemberBot[]> {
  return db.query<DbMemberBot>(
    `select ${BOT_COLUMNS}, m.role from bot_members m join bots b on b.id = m.bot_id
     where m.user_id = $1 order by b.created_at desc, b.id`,
    [userId],
  );
}

/** The bots a user belongs to with their owners: the live stream subscribes per owner. */
export async function listMembershipOwners(db: Queryable, userId: string): Promise<{ bot_id: string; owner_id: string }[]> {
  return db.query(
    `select b.id as bot_id, b.owner_id from bot_members m join bots b on b.id = m.bot_id where m.user_id = $1`,
    [userId],
  );
}

export async function countOwnedBots(db: Queryable, userId: string): Promise<number> {
  const rows = await db.query<{ n: number | string }>(`select count(*) as n from bots where owner_id = $1`, [userId]);
  return Number(rows[0]?.n ?? 0);
}

export async function listMembers(db: Queryable, botId: string): Promise<DbMember[]> {
  return db.query<DbMember>(
    `select m.bot_id, m.user_id, u.email, m.role, m.created_at from bot_members m join users u on u.id = m.user_id
     where m.bot_id = $1 order by m.role = 'owner' desc, m.created_at, m.user_id`,
    [botId],
  );
}


export async function findMember(db: Queryable, botId: string, userId: string): Promise<DbMember | undefined> {
  const rows = await db.query<DbMember>(
    `select m.bot_id, m.user_id, u.email, m.role, m.created_at from bot_members m join users u on u.id = m.user_id
     where m.bot_id = $1 and m.user_id = $2`,
    [botId, userId],
  );
  return rows[0];
}

export async function countMembers(db: Queryable, botId: string): Promise<number> {
  const rows = await db.query<{ n: number | string }>(`select count(*) as n from bot_members where bot_id = $1`, [botId]);
  return Number(rows[0]?.n ?? 0);
}

/** Removes an operator (never the owner) and the conversations assigned to them on that bot. */
export async function deleteOperator(db: Queryable, botId: string, userId: string): Promise<boolean> {
  const rows = await db.query(
    `delete from bot_members where bot_id = $1 and user_id = $2 and role = 'operator' returning 1`,
    [botId, userId],
  );
  if (rows.length === 0) return false;
  await db.query(`delete from conversation_assignees where bot_id = $1 and user_id = $2`, [botId, userId]);
  return true;
}

export interface DbInvite {
  id: string;
  bot_id: string;
  email: string;
  role: "operator";
  created_at: Date;
  expires_at: Date;
}

const INVITE_COLUMNS = `i.id, i.bot_id, i.email, i.role, i.created_at, i.expires_at`;

export async function insertInvite(
  db: Queryable, invite: { botId: string; email: string; role: "operator"; codeHash: string; invitedBy: string; expiresAt: Date },
): Promise<DbInvite> {
  const rows = await db.query<DbInvite>(
    `insert into bot_invites as i (bot_id, email, role, code_hash, invited_by, expires_at)
     values ($1, $2, $3, $4, $5, $6) returning ${INVITE_COLUMNS}`,
    [invite.botId, invite.email, invite.role, invite.codeHash, invite.invitedBy, invite.expiresAt],
  );
  return rows[0]!;
}

export async function listPendingInvites(db: Queryable, botId: string): Promise<DbInvite[]> {
  return db.query<DbInvite>(
    `select ${INVITE_COLUMNS} from bot_invites i
     where i.bot_id = $1 and i.accepted_at is null and i.expires_at > now() order by i.created_at desc, i.id`,
    [botId],
  );
}

export async function deleteInvite(db: Queryable, botId: string, inviteId: string): Promise<boolean> {
  const rows = await db.query(`delete from bot_invites where bot_id = $1 and id = $2 and accepted_at is null returning 1`, [botId, inviteId]);
  return rows.length > 0;
}

/** A pending, unexpired invite by its code's hash, locked until the transaction ends (accepted once). */
export async function findPendingInviteForUpdate(db: Queryable, codeHash: string): Promise<DbInvite | undefined> {
  const rows = await db.query<DbInvite>(
    `select ${INVITE_COLUMNS} from bot_invites i
     where i.code_hash = $1 and i.accepted_at is null and i.expires_at > now() for update`,
    [codeHash],
  );
  return rows[0];
}

export async function markInviteAccepted(db: Queryable, inviteId: string, userId: string): Promise<void> {
  await db.query(`update bot_invites set accepted_at = now(), accepted_by = $2 where id = $1`, [inviteId, userId]);
}
