// Routing: a conversation that needs a human (a bot handoff, an operator takeover, or a bot
// with no backend) and has no assignee goes to an online member under the bot's capacity,
// round-robin or least-busy. One decision per conversation across every process: each runs
// in one transaction holding the bot's routing row (db/routing.ts). The periodic scan routes
// what waited for someone to come online and takes conversations from members offline too long.
import type { Effects } from "../core/events.ts";
import { findConversationById, type DbConversation } from "../db/conversations.ts";
import type { Db } from "../db/driver.ts";
import { touchConversationUpdatedAt } from "../db/inbox_state.ts";
import {
  assignIfUnassigned, findRouting, isRoutable, listRoutable, listStranded, lockRouting, markBackendPolled, pickMember, unassignFrom, upsertRouting,
  type RoutingMode,
} from "../db/routing.ts";
import { assigneesOf, withRelations } from "./inbox_view.ts";
import type { BotDirectory } from "./directory.ts";
import { requireMember } from "./members.ts";

export type { RoutingMode };
export const ROUTING_MODES = ["off", "round_robin", "least_busy"] as const;
/** The capacity a bot starts with: conversations one member answers at a time. */
export const DEFAULT_CAPACITY = 3;
export const MAX_CAPACITY = 1000;
/** Why: a scan handles a bounded batch; the next one goes on, so a backlog never makes one scan long. */
export const ROUTING_SCAN_BATCH = 100;

export interface Routing {
  bot_id: string;
  mode: RoutingMode;
  capacity: number;
  updated_at: string | null;
}

type RoutingDeps = { db: Db; dispatch(effects: Effects): Promise<void> };

export async function getRouting(deps: { db: Db }, userId: string, botId: string): Promise<Routing> {
  const bot = await requireMember(deps.db, userId, botId, "owner");
  const row = await findRouting(deps.db, bot.id);
  return row
    ? { bot_id: row.bot_id, mode: row.mode, capacity: row.capacity, updated_at: row.updated_at.toISOString() }
    : { bot_id: bot.id, mode: "off", capacity: DEFAULT_CAPACITY, updated_at: null };
}

export async function setRouting(
  deps: RoutingDeps & { bots: Pick<BotDirectory, "changed"> }, userId: string, botId: string, input: { mode: RoutingMode; capacity?: number },
): Promise<Routing> {
  const bot = await requireMember(deps.db, userId, botId, "owner");
  const current = await findRouting(deps.db, bot.id);
  const row = await upsertRouting(deps.db, bot.id, input.mode, input.capacity ?? current?.capacity ?? DEFAULT_CAPACITY);
  // Every process's directory remembers whether the bot routes (asked after each visitor message).
  await deps.bots.changed(bot.id);
  // What waited while routing was off is routed now, not at the next scan.
  if (row.mode !== "off") void routePending(deps).catch(() => undefined);
  return { bot_id: row.bot_id, mode: row.mode, capacity: row.capacity, updated_at: row.updated_at.toISOString() };
}

async function announce(deps: RoutingDeps, row: DbConversation): Promise<void> {
  const [[card], assignees] = await Promise.all([withRelations(deps, [row]), assigneesOf(deps.db, [row.id])]);
  const conversation = { ...card!, assignee: assignees.get(row.id) ?? null };
  await deps.dispatch({ events: [{ kind: "conversation_updated", owner_id: row.owner_id, bot_id: row.bot_id, conversation }], updates: [] });
}

/**
 * Routes one conversation if it needs a human, has no assignee and the bot routes: returns the
 * member it went to, or null. `except` is a member it must not go to (the one it was taken from).
 */
export async function routeConversation(deps: RoutingDeps, botId: string, conversationId: string, except: string | null = null): Promise<string | null> {
  const decided = await deps.db.transaction(async (tx) => {
    const routing = await lockRouting(tx, botId);
    if (!routing || !(await isRoutable(tx, conversationId))) return null;
    const member = await pickMember(tx, routing, except);
    if (!member || !(await assignIfUnassigned(tx, conversationId, botId, member))) return null;
    return { member, row: await touchConversationUpdatedAt(tx, conversationId) };
  });
  if (!decided) return null;
  await announce(deps, decided.row);
  return decided.member;
}

/** Routes waiting conversations of every routing bot (a member came online, a scan). */
export async function routePending(deps: RoutingDeps): Promise<number> {
  let routed = 0;
  // A bot whose members are all full stays full for the rest of this scan: its other waiting conversations are not tried.
  const full = new Set<string>();
  for (const { id, bot_id } of await listRoutable(deps.db, ROUTING_SCAN_BATCH)) {
    if (full.has(bot_id)) continue;
    if (await routeConversation(deps, bot_id, id)) routed++;
    else full.add(bot_id);
  }
  return routed;
}

/** Takes conversations from assignees offline longer than `offlineSeconds` and routes them again. */
export async function reassignStranded(deps: RoutingDeps, offlineSeconds: number): Promise<number> {
  let moved = 0;
  for (const { id, bot_id, user_id } of await listStranded(deps.db, offlineSeconds, ROUTING_SCAN_BATCH)) {
    const taken = await deps.db.transaction(async (tx) => {
      // The same lock as a decision: an unassignment never interleaves with one.
      await lockRouting(tx, bot_id);
      return unassignFrom(tx, id, user_id);
    });
    if (!taken) continue;
    moved++;
    if (!(await routeConversation(deps, bot_id, id, user_id))) {
      const row = await findConversationById(deps.db, id);
      if (row) await announce(deps, row);
    }
  }
  return moved;
}

/** Why: the 5-minute rule needs no finer record; at most one write a minute per bot and process however often it polls. */
const POLL_MARK_INTERVAL_MS = 60_000;
const polledMarks = new Map<string, number>();

/** The bot's backend polled get-updates: it answers, so its conversations do not need a human for that reason. */
export function backendPolled(db: Db | undefined, botId: string): void {
  const now = Date.now();
  if (!db || now - (polledMarks.get(botId) ?? 0) < POLL_MARK_INTERVAL_MS) return;
  polledMarks.set(botId, now);
  // Best effort: a lost mark only lets routing treat the bot as without a backend for a while.
  markBackendPolled(db, botId).catch(() => polledMarks.delete(botId));
}
