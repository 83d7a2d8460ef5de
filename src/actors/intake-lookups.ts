// What a group commit planned from the look-ups asks the database for (actors/intake-committer.ts),
// and how the shared answer splits back into each bot's part.
import type { BotKey, DbIntakeState, DbLockedBot } from "../db/intake.ts";
import type { IntakeItem } from "./intake-plan.ts";

/** Each batch's distinct client ids, senders and chats, tagged with its bot. */
export function lookupKeys(batches: { bot: { id: string }; items: IntakeItem[] }[]): { clientIds: BotKey[]; senders: BotKey[]; chats: BotKey[] } {
  const distinct = (pick: (item: IntakeItem) => string | null) => batches.flatMap(({ bot, items }) => {
    const keys = new Set(items.map(pick).filter((key): key is string => key !== null));
    return [...keys].map((key) => ({ botId: bot.id, key }));
  });
  return {
    clientIds: distinct((i) => i.input.clientMessageId),
    senders: distinct((i) => i.input.contactKey),
    chats: distinct((i) => i.chatId),
  };
}

/** What the shared look-up found for one bot. */
export function foundOf(found: DbIntakeState, botId: string, counters: DbLockedBot) {
  const mine = <T extends { bot_id: string }>(rows: T[]) => rows.filter((r) => r.bot_id === botId);
  return { counters, twins: mine(found.twins), contacts: mine(found.contacts), conversations: mine(found.conversations) };
}
