// What a process's group commits last stored of each bot it serves: its counters, and the
// conversations and contacts of its recent chats and senders, as their transactions left them.
// A batch whose every chat and sender is here is planned from it and committed without the
// look-ups: behind a check instead (on PostgreSQL in one round trip, the writes and COMMIT sent
// behind the check rather than behind the look-ups' answer). Nothing here is trusted: the check
// (db/intake-guard.ts) compares it with the stored rows under the bots' locks, and another
// writer's numbers move the batch's (db/intake-write.ts writeIncomingBatch). A wrong memory costs a
// refused transaction, never a wrong row.
import type { DbContact } from "../db/contacts.ts";
import type { DbConversation } from "../db/conversations.ts";
import type { DbBotCounters } from "../db/intake.ts";
import type { Found, IntakeItem } from "./intake-plan.ts";

/**
 * Why: bounds the memory (a conversation and a contact row, about 2 kB; an eighth more are held
 * between two evictions, see Recent) while keeping every chat that writes in bursts: a lone
 * sender's next message is what waits on the second round trip.
 */
export const REMEMBERED_CHATS = 4096;
/** Why: the bots whose counters are kept; a bot without counters here is planned from the look-ups. */
export const REMEMBERED_BOTS = 1024;

/**
 * A map that forgets its least recently used keys once it holds more than `limit` and an eighth:
 * then down to `limit`, in one pass. Forgetting one key per insert (the first key of the map's
 * iteration) cost 1.2 µs per insert against 0.15 (measured, Bun 1.4): a map whose keys are
 * deleted and inserted again keeps the deleted slots until it is rehashed, and every new
 * iterator walks past them from the start.
 */
export class Recent<V> {
  private readonly entries = new Map<string, V>();
  constructor(private readonly limit: number) {}

  get size(): number {
    return this.entries.size;
  }

  get(key: string): V | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }

  set(key: string, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size <= this.limit + (this.limit >> 3)) return;
    let over = this.entries.size - this.limit;
    for (const oldest of this.entries.keys()) {
      if (over-- === 0) break;
      this.entries.delete(oldest);
    }
  }

  delete(key: string): void {
    this.entries.delete(key);
  }
}

export class IntakeCache {
  private readonly counters = new Recent<DbBotCounters>(REMEMBERED_BOTS);
  private readonly conversations = new Recent<DbConversation>(REMEMBERED_CHATS);
  private readonly contacts = new Recent<DbContact>(REMEMBERED_CHATS);

  /** What the look-ups would find for this batch, if every chat and sender of it is remembered. */
  found(botId: string, items: IntakeItem[]): Found | undefined {
    const counters = this.counters.get(botId);
    if (!counters) return undefined;
    const conversations = new Map<string, DbConversation>();
    const contacts = new Map<string, DbContact>();
    for (const { chatId, input } of items) {
      const conversation = conversations.get(chatId) ?? this.conversations.get(key(botId, chatId));
      const contact = contacts.get(input.contactKey) ?? this.contacts.get(key(botId, input.contactKey));
      if (!conversation || !contact) return undefined;
      conversations.set(chatId, conversation);
      contacts.set(input.contactKey, contact);
    }
    return { counters, twins: [], conversations: [...conversations.values()], contacts: [...contacts.values()] };
  }

  /** A committed transaction's counters of each of its bots, and its rows of them, as stored when it committed. */
  remember(counters: Map<string, DbBotCounters>, conversations: Iterable<DbConversation>, contacts: Iterable<DbContact>): void {
    for (const [botId, botCounters] of counters) this.counters.set(botId, botCounters);
    for (const c of conversations) if (counters.has(c.bot_id)) this.conversations.set(key(c.bot_id, c.chat_id), c);
    for (const c of contacts) if (counters.has(c.bot_id)) this.contacts.set(key(c.bot_id, c.contact_key), c);
  }

  /**
   * After a failed or refused transaction: its bots are planned from the look-ups until one
   * commits, which remembers that batch's rows afresh. Another chat of theirs remembered wrong
   * costs its next batch one refusal, then the same.
   */
  forget(botIds: string[]): void {
    for (const botId of botIds) this.counters.delete(botId);
  }
}

const key = (botId: string, chatOrContact: string) => `${botId}\n${chatOrContact}`;
