// Presence: online, away or offline. A member chooses (PUT /api/me/presence) or leaves it
// automatic: online while a cabinet of theirs is open (an open inbox stream, wherever it is
// served), offline otherwise. Every change is published per bot the member belongs to, on
// the owner's event subject, so every process's inbox streams pass it to the team's cabinets.
import { randomUUID } from "node:crypto";
import type { EventBus } from "../bus/bus.ts";
import type { PresenceEvent } from "../core/events.ts";
import { eventSubject } from "../core/subjects.ts";
import type { Db, Queryable } from "../db/driver.ts";
import {
  botsOfMember, deleteCabinetSession, deleteStaleCabinetSessions, findPresences, setPresenceChoice, touchCabinetSession, type PresenceStatus,
} from "../db/presence.ts";
import type { Logger } from "../logger.ts";

export type { PresenceStatus };

/** Why: a third of CABINET_STALE_SECONDS, so two missed refreshes still keep an open cabinet online. */
export const CABINET_HEARTBEAT_MS = 30_000;

type PresenceDeps = { db: Db; bus: EventBus };

export interface MyPresence {
  user_id: string;
  status: PresenceStatus;
  /** What the member chose; null: automatic (online while a cabinet is open). */
  choice: PresenceStatus | null;
}

/** Tells every bot of the member (their team's cabinets, in every process) the member's presence now. */
export async function announcePresence(deps: PresenceDeps, userId: string): Promise<MyPresence> {
  const presence = (await findPresences(deps.db, [userId])).get(userId);
  const status = presence?.presence ?? "offline";
  for (const { bot_id, owner_id } of await botsOfMember(deps.db, userId)) {
    const event: PresenceEvent = { kind: "presence_changed", owner_id, bot_id, user_id: userId, presence: status };
    await deps.bus.publish(eventSubject(event), event);
  }
  return { user_id: userId, status, choice: presence?.choice ?? null };
}

/**
 * `online` is a choice too: the member stays online without a cabinet open (an app that only
 * uses the API). `auto` (or the cabinet's switch back to automatic) clears the choice.
 */
export async function setMyPresence(deps: PresenceDeps, userId: string, status: PresenceStatus | "auto"): Promise<MyPresence> {
  await setPresenceChoice(deps.db, userId, status === "auto" ? null : status);
  return announcePresence(deps, userId);
}

export async function myPresence(deps: PresenceDeps, userId: string): Promise<MyPresence> {
  const presence = (await findPresences(deps.db, [userId])).get(userId);
  return { user_id: userId, status: presence?.presence ?? "offline", choice: presence?.choice ?? null };
}

/** The presence of several users (member lists). */
export async function presencesOf(db: Queryable, userIds: string[]): Promise<Map<string, PresenceStatus>> {
  const rows = await findPresences(db, userIds);
  return new Map([...rows].map(([id, row]) => [id, row.presence]));
}

/**
 * A cabinet of the user opened (its inbox stream is live): recorded, refreshed while it stays
 * open and removed when it closes, each step announced. Returns the close.
 */
export function openCabinet(deps: PresenceDeps & { logger: Logger }, userId: string): () => void {
  const sessionId = randomUUID();
  const warn = (err: unknown) => deps.logger.warn({ err, user_id: userId }, "cabinet presence could not be recorded");
  const opened = touchCabinetSession(deps.db, sessionId, userId).then(() => announcePresence(deps, userId)).catch(warn);
  const heartbeat = setInterval(() => void touchCabinetSession(deps.db, sessionId, userId).catch(warn), CABINET_HEARTBEAT_MS);
  heartbeat.unref?.();
  return () => {
    clearInterval(heartbeat);
    void opened
      .then(() => deleteCabinetSession(deps.db, sessionId))
      .then(() => announcePresence(deps, userId))
      .catch(warn);
  };
}

/** Cabinets of a process that died stop counting: their members' presence is announced again. */
export async function sweepStaleCabinets(deps: PresenceDeps): Promise<number> {
  const users = await deleteStaleCabinetSessions(deps.db);
  for (const userId of users) await announcePresence(deps, userId);
  return users.length;
}
