// Batches of the group commit's write (db/intake-write.ts) for the tests that write or plan one.
import type { BotBatchWrite } from "../../src/db/intake-write.ts";

/** An id no row has. */
export const NIL = "00000000-0000-0000-0000-000000000000";

/** A batch of `botId` that writes nothing, counters at zero: each test fills in its parts. */
export const emptyBatch = (botId: string, ownerId: string): BotBatchWrite => ({
  botId, ownerId, base: { last_message_id: 0, last_update_id: 0, last_conversation_number: 0, last_contact_number: 0 },
  counters: { last_message_id: 0, last_update_id: 0, last_conversation_number: 0, last_contact_number: 0 },
  contacts: [], conversations: [], messages: [], outbox: [], touches: [],
});
