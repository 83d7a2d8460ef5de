// What a support team's day runs on besides requests: after a visitor writes, routing and the
// away message; and a periodic scan in every web process (snoozes due, waiting conversations
// to route, assignees offline too long, cabinets of dead processes). Every step is safe to run
// in several processes at once (claims, row locks, conditional upserts), so no lease is needed.
import type { DbBot } from "../db/bots.ts";
import { findConversationByChat, findConversationById } from "../db/conversations.ts";
import { claimAwayMessage, findHours } from "../db/hours.ts";
import { needsHuman } from "../db/routing.ts";
import type { EventBus } from "../bus/bus.ts";
import type { Logger } from "../logger.ts";
import { sendFromBot, type ConversationDeps } from "./conversations.ts";
import type { BotDirectory } from "./directory.ts";
import { awayState } from "./hours.ts";
import { sweepStaleCabinets } from "./presence.ts";
import { reassignStranded, routeConversation, routePending } from "./routing.ts";
import { reopenDue } from "./snooze.ts";

export type TeamworkDeps = ConversationDeps & { bus: EventBus; logger: Logger; bots: BotDirectory; now?: () => number };

/** Why: snoozes reopen within this of their time, waiting conversations are routed this soon after someone comes online. */
export const TEAMWORK_SCAN_MS = 5_000;

/**
 * A visitor wrote in `conversationId`: route it if it needs a human, and tell the visitor the
 * team is away (once per 12 hours) when the bot is outside its hours or nobody is online.
 */
export async function afterVisitorMessage(deps: TeamworkDeps, bot: Pick<DbBot, "id" | "owner_id">, conversationId: string): Promise<void> {
  // Most bots neither route nor send away messages: the directory remembers which (no query per visitor message).
  if (!(await deps.bots.teamwork(bot.id)) || !(await needsHuman(deps.db, conversationId))) return;
  await routeConversation(deps, bot.id, conversationId);
  const hours = await findHours(deps.db, bot.id);
  if (!hours?.away_message) return;
  const { away } = await awayState(deps, bot.id);
  if (!away || !(await claimAwayMessage(deps.db, conversationId))) return;
  const row = await findConversationById(deps.db, conversationId);
  if (!row) return;
  await sendFromBot(deps, bot, row.chat_id, { text: hours.away_message, entities: null }, null, { away_message: true });
}

/** The bot handed the chat to a human: it is routed (and the visitor told the team is away) now. */
export async function afterBotHandoff(deps: TeamworkDeps, bot: Pick<DbBot, "id" | "owner_id">, chatId: string): Promise<void> {
  const row = await findConversationByChat(deps.db, bot.id, chatId);
  if (row) await afterVisitorMessage(deps, bot, row.id);
}

export interface TeamworkScan {
  /** Runs one scan now (tests); resolves when it is done. */
  runOnce(): Promise<{ reopened: number; routed: number; reassigned: number }>;
  stop(): Promise<void>;
}

export function startTeamworkScan(deps: TeamworkDeps, options: { reassignAfterSeconds: number; intervalMs?: number }): TeamworkScan {
  let running: Promise<{ reopened: number; routed: number; reassigned: number }> | undefined;
  const scan = async () => {
    await sweepStaleCabinets(deps);
    const reopened = await reopenDue(deps);
    const reassigned = await reassignStranded(deps, options.reassignAfterSeconds);
    const routed = await routePending(deps);
    return { reopened, routed, reassigned };
  };
  const runOnce = () => {
    running ??= scan().finally(() => (running = undefined));
    return running;
  };
  const timer = setInterval(() => {
    runOnce().catch((err: unknown) => deps.logger.warn({ err: String(err) }, "team scan failed; the next one retries"));
  }, options.intervalMs ?? TEAMWORK_SCAN_MS);
  timer.unref?.();
  return {
    runOnce,
    async stop() {
      clearInterval(timer);
      await running?.catch(() => undefined);
    },
  };
}
