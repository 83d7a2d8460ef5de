// A visitor's right to be forgotten and a bot's retention period. Both delete for good, in
// one transaction: the contact (erasure), their conversations with every message, the files
// uploaded in those chats (rows, then the bytes in the store), search entries (the trigram
// indexes are over these rows), pending updates of those chats in the outbox and the
// table-backed update log, delivery records of their messages. The erasures table records
// that it happened and how much went, with no personal data.
import { badRequest, notFound } from "../core/errors.ts";
import { UUID_PATTERN } from "../core/files.ts";
import type { Db } from "../db/driver.ts";
import {
  contactConversationIds, contactsOfConversations, deleteContact, deleteContactsLeftAlone, deleteRefusedMailFrom, eraseConversations, expiredConversations, findContactForErasure, recordErasure,
  retentionDays, setRetentionDays, type ErasedCounts,
} from "../db/erasure.ts";
import type { FileStore } from "../files/store.ts";
import type { Leases } from "../leases/leases.ts";
import type { UpdateLog } from "../updates/log.ts";
import { removeStoredFiles } from "./files.ts";
import { requireMember } from "./members.ts";

export interface ErasureDeps {
  db: Db;
  files: FileStore;
  /** The update log outside the database (JetStream) keeps payloads of those chats' pending updates. */
  updates: Pick<UpdateLog, "eraseChats">;
}

/** After commit: what lives outside the database. A failure leaves bytes the sweep removes, and updates that expire within 24 h. */
async function eraseOutside(deps: ErasureDeps, botId: string, erased: { fileIds: string[]; chatIds: string[] }): Promise<void> {
  await Promise.allSettled([removeStoredFiles(deps.files, erased.fileIds), deps.updates.eraseChats(botId, erased.chatIds)]);
}

/** Why: one retention pass deletes at most this many conversations, so its transaction stays short; the next pass goes on. */
export const RETENTION_BATCH = 200;
/** Why: longer than any setting in days is fine-grained; at most a day late, and cheap (an index scan). */
export const RETENTION_INTERVAL_MS = 3600_000;
/** The lease that makes one process of a deployment run the pass. */
export const RETENTION_LEASE = "retention";
/** Why: a retention period under a day would delete conversations still being followed up. */
const MAX_RETENTION_DAYS = 36_500;

export interface ErasureResult extends ErasedCounts {
  contact_id: string;
}

/** Owner only (an operator gets 403, a non-member or unknown contact 404). */
export async function eraseContact(deps: ErasureDeps, userId: string, contactId: string): Promise<ErasureResult> {
  if (!UUID_PATTERN.test(contactId)) throw notFound("contact");
  const contact = await findContactForErasure(deps.db, contactId);
  if (!contact) throw notFound("contact");
  await requireMember(deps.db, userId, contact.bot_id, "owner").catch((err) => {
    throw err.code === "not_found" ? notFound("contact") : err;
  });
  const erased = await deps.db.transaction(async (tx) => {
    const conversations = await contactConversationIds(tx, contact.bot_id, contact.id);
    const counts = await eraseConversations(tx, contact.bot_id, conversations, { contactId: contact.id });
    if (contact.email) await deleteRefusedMailFrom(tx, contact.bot_id, contact.email);
    await deleteContact(tx, contact.id);
    await recordErasure(tx, contact.bot_id, userId, "request", counts);
    return counts;
  });
  await eraseOutside(deps, contact.bot_id, erased);
  return { contact_id: contact.id, conversations: erased.conversations, messages: erased.messages, files: erased.files };
}

export async function botRetention(db: Db, userId: string, botId: string): Promise<{ retention_days: number | null }> {
  const bot = await requireMember(db, userId, botId);
  return { retention_days: await retentionDays(db, bot.id) };
}

export async function setBotRetention(db: Db, userId: string, botId: string, days: number | null): Promise<{ retention_days: number | null }> {
  if (days !== null && (!Number.isInteger(days) || days < 1 || days > MAX_RETENTION_DAYS)) {
    throw badRequest(`retention_days: a whole number of days from 1 to ${MAX_RETENTION_DAYS}, or null to keep conversations forever`);
  }
  const bot = await requireMember(db, userId, botId, "owner");
  await setRetentionDays(db, bot.id, days);
  return { retention_days: days };
}

/** One pass: deletes up to RETENTION_BATCH closed conversations past their bot's retention, and contacts left with none. */
export async function applyRetention(deps: ErasureDeps, now: Date): Promise<ErasedCounts> {
  const total: ErasedCounts = { conversations: 0, messages: 0, files: 0 };
  for (const { bot_id, ids } of await expiredConversations(deps.db, now, RETENTION_BATCH)) {
    const erased = await deps.db.transaction(async (tx) => {
      const contacts = await contactsOfConversations(tx, ids);
      const counts = await eraseConversations(tx, bot_id, ids);
      await deleteContactsLeftAlone(tx, contacts);
      await recordErasure(tx, bot_id, null, "retention", counts);
      return counts;
    });
    await eraseOutside(deps, bot_id, erased);
    total.conversations += erased.conversations;
    total.messages += erased.messages;
    total.files += erased.files;
  }
  return total;
}

/** Runs applyRetention every interval in the one process holding the retention lease. */
export function startRetention(
  deps: ErasureDeps & { leases: Leases; holder: string; now?: () => number; onError(err: unknown): void; onErased(counts: ErasedCounts): void },
  intervalMs = RETENTION_INTERVAL_MS,
): { runOnce(): Promise<ErasedCounts | undefined>; stop(): Promise<void> } {
  let running: Promise<ErasedCounts | undefined> | undefined;
  const runOnce = () => (running ??= (async () => {
    try {
      if (!(await deps.leases.acquire(RETENTION_LEASE, deps.holder))) return undefined;
      try {
        const counts = await applyRetention(deps, new Date((deps.now ?? Date.now)()));
        if (counts.conversations) deps.onErased(counts);
        return counts;
      } finally {
        await deps.leases.release(RETENTION_LEASE, deps.holder);
      }
    } catch (err) {
      deps.onError(err);
      return undefined;
    } finally {
      running = undefined;
    }
  })());
  const timer = setInterval(() => void runOnce(), intervalMs);
  timer.unref();
  return {
    runOnce,
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
