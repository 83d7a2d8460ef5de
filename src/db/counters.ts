import type { Queryable } from "./driver.ts";

export type BotCounter = "last_message_id" | "last_update_id" | "last_conversation_number" | "last_contact_number";

/** Takes the bot's next number(s); call inside the transaction that uses them. */
export async function nextBotNumbers<C extends BotCounter>(
  db: Queryable, botId: string, counters: readonly C[],
): Promise<Record<C, number>> {
  const sets = counters.map((c) => `${c} = ${c} + 1`).join(", ");
  const rows = await db.query<Record<C, number>>(
    `update bots set ${sets} where id = $1 returning ${counters.join(", ")}`,
    [botId],
  );
  return rows[0]!;
}
