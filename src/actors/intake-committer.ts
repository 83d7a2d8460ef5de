// IntakeCommitter: one per process; the transactions of the bots' group commits. Each bot's
// IntakeActor hands it one ready batch at a time, and every batch handed over while the
// committer is busy waits for the next transaction, which carries them ALL: its bots' rows
// are locked in one statement, their look-ups are one statement, their writes one more, then
// COMMIT. A statement's fixed cost (plan, executor start, round trip) and the commit's flush
// are paid per transaction, not per bot: with ten busy bots each bot's own batch held ~3.5
// messages and paid them alone, while one hot bot's batches of ~28 already beat a naive server.
// A batch whose chats and senders the process remembers (intake-cache.ts) is planned before the
// transaction starts and written behind the lock and a check of what the plan assumed, without
// the look-ups: on PostgreSQL one statement that locks, checks and writes, committed as its own
// transaction (one round trip instead of two, and no BEGIN or COMMIT); on PGlite the look-ups'
// own time is saved.
import type { Db, Queryable } from "../db/driver.ts";
import type { DbBot } from "../db/bots.ts";
import type { DbContact } from "../db/contacts.ts";
import type { DbConversation } from "../db/conversations.ts";
import type { BotUpdates } from "../updates/sql.ts";
import { findConversationsByIds, findIntakeState, lockBots, type DbBotCounters } from "../db/intake.ts";
import { writeIncomingBatch, writeKnownBatchAlone, type IncomingBatchWritten } from "../db/intake-write.ts";
import { KEPT_PLANS, keepOnePlanPerStatement, type AnalysedRows } from "../db/intake-plans.ts";
import { isStaleIntakePlan, type PlannedFrom } from "../db/intake-guard.ts";
import { isDependencyOutage, notFound } from "../core/errors.ts";
import { json } from "../db/driver.ts";
import { IntakeCache } from "./intake-cache.ts";
import { planBatch, shiftPlanNumbers, type BatchPlan, type Found, type IntakeItem } from "./intake-plan.ts";
import { LookupPlanGate } from "./lookup-plan-gate.ts";
import { foundOf, lookupKeys } from "./intake-lookups.ts";
import { inOrder } from "./in-order.ts";
import { DEFAULT_INTAKE_TRANSACTIONS } from "../config.ts";

/**
 * Why: bounds one transaction (its statement's size, how long it holds its bots' locks, its
 * memory) when many bots are busy at once; the batches left over go in the next one.
 */
export const MAX_COMMIT_MESSAGES = 1024;

/**
 * Why: the batches handed over while a transaction looks up wait for the next, so the fewer
 * look up at once, the more each carries. Two transactions started at once cost 0.47–0.49 ms of
 * PostgreSQL CPU per message against 0.33–0.37 for one (10 busy bots, round 5): the second
 * started at once with the one batch that came next.
 */
const LOOKING_UP_AT_ONCE = 1;

/**
 * Why: PGlite runs one statement at a time, so a second transaction would only start with a
 * smaller batch. On PostgreSQL the transactions under way at once are the deployment's choice
 * (INTAKE_TRANSACTIONS, config.ts): with more than one, the next transaction's look-ups run
 * beside the last one's writes and COMMIT.
 */
const PGLITE_IN_FLIGHT = 1;

/** A committed batch of one bot, as its IntakeActor answers and publishes it. */
export interface Committed {
  plan: BatchPlan;
  /** The batch's conversations (and, in a shared transaction, its neighbours'), as stored, by id. */
  conversations: Map<string, DbConversation>;
  /** Its senders as stored, by id. */
  contacts: Map<string, DbContact>;
  /** Each update's payload encoded once, as its log message carries it (numbers as committed). */
  updateJson: (string | undefined)[];
}

export interface CommitterDeps {
  db: Db;
  /** Present when the update log lives in the same database (embedded): the transaction writes the updates itself. */
  logInTransaction?: { append(tx: Queryable, appends: BotUpdates[]): Promise<void> };
  /** What ANALYZE must have seen of each look-up table before the look-ups run on kept plans (tests move it). */
  keptLookupPlanStatistics?: AnalysedRows;
  /** Transactions under way at once on PostgreSQL (config.ts INTAKE_TRANSACTIONS); PGlite runs one. */
  inFlight?: number;
}

interface Handed {
  bot: DbBot;
  items: IntakeItem[];
  resolve(committed: Committed): void;
  reject(err: unknown): void;
}

/** A batch planned from what the process remembered, and what that was. */
interface Remembered {
  plan: BatchPlan;
  found: Found;
}

export class IntakeCommitter {
  private handed: Handed[] = [];
  /** Transactions that have not yet sent their writes and COMMIT. */
  private lookingUp = 0;
  private inFlight = 0;
  private scheduled = false;
  /** Bots with a transaction under way, by how many: a batch of theirs is not planned from memory. */
  private readonly busy = new Map<string, number>();

  private readonly lookupPlans: LookupPlanGate;
  /**
   * On PostgreSQL it saves the look-ups' round trip; on PGlite the look-ups themselves (1.0–1.3 ms
   * of a lone message's ~4.5 ms transaction there, measured), and the lock runs on a kept plan.
   */
  private readonly memory = new IntakeCache();
  /** Transactions planned from memory that committed so, and those the check refused (then planned from the look-ups). */
  readonly fromMemory = { committed: 0, refused: 0 };

  constructor(private readonly deps: CommitterDeps) {
    this.lookupPlans = new LookupPlanGate(deps.db, deps.keptLookupPlanStatistics);
  }

  /** Resolves once the batch is committed; rejects with what failed it (another bot's bad row never does). */
  commit(bot: DbBot, items: IntakeItem[]): Promise<Committed> {
    return new Promise<Committed>((resolve, reject) => {
      this.handed.push({ bot, items, resolve, reject });
      this.schedule();
    });
  }

  /** A turn later: the other actors woken by the same socket reads hand their batches over first. */
  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.startWhileRoom();
    });
  }

  private startWhileRoom(): void {
    const room = this.deps.db.kind === "pglite" ? PGLITE_IN_FLIGHT : (this.deps.inFlight ?? DEFAULT_INTAKE_TRANSACTIONS);
    while (this.handed.length && this.lookingUp < LOOKING_UP_AT_ONCE && this.inFlight < room) {
      const taken = this.take();
      const remembered = this.plansFromMemory(taken);
      const bots = taken.map((h) => h.bot.id);
      for (const id of bots) this.busy.set(id, (this.busy.get(id) ?? 0) + 1);
      this.lookingUp++;
      this.inFlight++;
      let lookedUp = false;
      const writesSent = () => {
        if (lookedUp) return;
        lookedUp = true;
        this.lookingUp--;
        if (this.handed.length) this.schedule();
      };
      void this.run(taken, writesSent, remembered).finally(() => {
        for (const id of bots) {
          const left = this.busy.get(id)! - 1;
          if (left === 0) this.busy.delete(id);
          else this.busy.set(id, left);
        }
        writesSent();
        this.inFlight--;
        if (this.handed.length) this.schedule();
      });
    }
  }

  /**
   * The oldest handed batches, at least one, up to MAX_COMMIT_MESSAGES messages in all, one per
   * bot: two batches of one bot (two actors of it in a process, as tests make) would both number
   * their rows from the same counters; the second waits for the next transaction.
   */
  private take(): Handed[] {
    const taken: Handed[] = [];
    const left: Handed[] = [];
    const bots = new Set<string>();
    let messages = 0;
    for (const h of this.handed) {
      const fits = taken.length === 0 || messages + h.items.length <= MAX_COMMIT_MESSAGES;
      if (fits && !bots.has(h.bot.id)) {
        taken.push(h);
        bots.add(h.bot.id);
        messages += h.items.length;
      } else {
        left.push(h);
      }
    }
    this.handed = left;
    return taken;
  }

  /**
   * Each batch planned from what the process remembers of its bot, or undefined when one of them
   * cannot be: a chat or sender not remembered, a transaction of its bot still under way (its
   * outcome is not remembered yet), or a plan that would create a contact or a conversation;
   * or when none of them writes a message.
   */
  private plansFromMemory(taken: Handed[]): Remembered[] | undefined {
    const remembered: Remembered[] = [];
    for (const h of taken) {
      const found = this.busy.has(h.bot.id) ? undefined : this.memory.found(h.bot.id, h.items);
      if (!found) return undefined;
      const plan = planBatch(h.items, found);
      const creates = plan.counters.last_conversation_number !== found.counters.last_conversation_number
        || plan.counters.last_contact_number !== found.counters.last_contact_number;
      if (creates) return undefined;
      remembered.push({ plan, found });
    }
    // The check travels with the writes: a transaction that would write nothing (every chat of
    // another channel, as remembered) is answered from the look-ups instead.
    return remembered.some((r) => r.plan.messages.length > 0) ? remembered : undefined;
  }

  /** Never throws: every handed batch is settled. */
  private async run(taken: Handed[], writesSent: () => void, remembered?: Remembered[]): Promise<void> {
    const bots = taken.map((h) => h.bot.id);
    try {
      let results: (Committed | Error)[] | undefined;
      if (remembered) {
        try {
          results = await this.transactionFromMemory(taken, remembered, writesSent);
          this.fromMemory.committed++;
        } catch (err) {
          // Refused, or a row refused: either way the batches are planned again from the look-ups
          // (where a bad row fails only its own request). An outage would fail that too.
          if (isDependencyOutage(err)) throw err;
          if (isStaleIntakePlan(err)) this.fromMemory.refused++;
          this.memory.forget(bots);
        }
      }
      results ??= await this.transaction(taken, writesSent);
      this.rememberCommitted(taken, results);
      taken.forEach((h, i) => {
        const result = results[i]!;
        if (result instanceof Error) h.reject(result);
        else h.resolve(result);
      });
    } catch (err) {
      this.memory.forget(bots);
      // One bot's bad row must not fail the other bots: alone, only its batch fails. An outage fails them all.
      if (taken.length > 1 && !isDependencyOutage(err)) {
        for (const h of taken) await this.run([h], writesSent);
        return;
      }
      for (const h of taken) h.reject(err);
    }
  }

  /** The committed bots' counters and rows, once for the transaction (its batches share one map of each). */
  private rememberCommitted(taken: Handed[], results: (Committed | Error)[]): void {
    const counters = new Map<string, DbBotCounters>();
    let shared: Committed | undefined;
    taken.forEach((h, i) => {
      const result = results[i]!;
      if (result instanceof Error) return;
      counters.set(h.bot.id, result.plan.counters);
      shared = result;
    });
    if (shared) this.memory.remember(counters, shared.conversations.values(), shared.contacts.values());
  }

  /** One transaction for every handed batch; a batch whose bot is gone gets its error, the rest commit. */
  private async transaction(batches: Handed[], writesSent: () => void): Promise<(Committed | Error)[]> {
    const { db } = this.deps;
    const keys = lookupKeys(batches);
    // Every statement on kept plans once the statistics allow it (PostgreSQL only: the settings
    // go with BEGIN), else from the writes on (both drivers keep statements by text; on PGlite the
    // log append behind them too, probing its primary keys): then the settings travel with the
    // look-ups, sent behind them, and PostgreSQL runs them (0.09 ms) while we plan the writes.
    const keptFromTheStart = await this.lookupPlans.allowed();
    const keptFromTheWrites = !keptFromTheStart;
    return db.transactionCommitBehind(async (tx) => {
      // The look-ups (one statement) run after the locks are granted (one connection runs them in
      // order), so they see everything committed before: one round trip for both.
      const [locked, found] = await inOrder(db, [
        () => lockBots(tx, batches.map((b) => b.bot.id)),
        () => findIntakeState(tx, keys.clientIds, keys.senders, keys.chats),
        () => keptFromTheWrites ? keepOnePlanPerStatement(tx) : Promise.resolve(),
      ] as const);
      const counters = new Map(locked.map((b) => [b.id, b]));
      const plans = batches.map((b) => {
        const botCounters = counters.get(b.bot.id);
        return botCounters && planBatch(b.items, foundOf(found, b.bot.id, botCounters));
      });
      const conversations = new Map(found.conversations.map((c) => [c.id, c]));
      const contacts = new Map(found.contacts.map((c) => [c.id, c]));
      const twinChats = found.twins.map((t) => t.conversation_id).filter((id) => !conversations.has(id));
      for (const c of await findConversationsByIds(tx, [...new Set(twinChats)])) conversations.set(c.id, c);
      return this.sendWrites(tx, batches, plans, { conversations, contacts }, writesSent);
    }, keptFromTheStart ? KEPT_PLANS : undefined);
  }

  /**
   * Batches planned from memory: the lock, then the writes with the check of what the plans
   * assumed. On PostgreSQL one statement, committed as its own transaction (db/intake-write.ts
   * writeKnownBatchAlone); on PGlite one transaction whose log append follows the write. When the
   * check refuses, the write fails whole and nothing is committed: it rejects with that refusal.
   * The lock and the check probe primary keys (a stored client id is refused by its unique index):
   * kept plans are safe from the start, whatever the tables held when they were made.
   */
  private async transactionFromMemory(batches: Handed[], remembered: Remembered[], writesSent: () => void): Promise<(Committed | Error)[]> {
    const { db } = this.deps;
    const planned: PlannedFrom = {
      conversations: remembered.flatMap((r) => r.found.conversations),
      contacts: remembered.flatMap((r) => r.found.contacts),
    };
    const stored = { conversations: new Map(planned.conversations.map((c) => [c.id, c])), contacts: new Map(planned.contacts.map((c) => [c.id, c])) };
    const plans = remembered.map((r) => r.plan);
    if (db.kind === "postgres" && !this.deps.logInTransaction) {
      return this.sendWrites(db, batches, plans, stored, writesSent, { before: Promise.resolve(), planned, alone: true }).last;
    }
    return db.transactionCommitBehind(async (tx) => {
      const locked = lockBots(tx, batches.map((b) => b.bot.id));
      // PGlite runs statements in the order they are issued, one at a time: the writes wait for the
      // lock's answer there (nothing to pipeline).
      if (db.kind !== "postgres") await locked;
      return this.sendWrites(tx, batches, plans, stored, writesSent, { before: locked, planned });
    }, KEPT_PLANS);
  }

  /**
   * Issues the writes of the batches that add messages, not awaited: COMMIT goes right behind
   * them (one round trip for all). `last` settles once they (and `before`) are answered, with
   * each batch's result; `stored` then holds the rows as the writes left them.
   */
  private sendWrites(
    tx: Queryable, batches: Handed[], plans: (BatchPlan | undefined)[],
    stored: { conversations: Map<string, DbConversation>; contacts: Map<string, DbContact> }, writesSent: () => void,
    fromMemory?: { before: Promise<unknown>; planned: PlannedFrom; alone?: boolean },
  ): { last: Promise<(Committed | Error)[]> } {
    const before = fromMemory?.before ?? Promise.resolve();
    const { db, logInTransaction } = this.deps;
    const { conversations, contacts } = stored;
    const writing = batches.flatMap((b, i) => (plans[i] && plans[i].messages.length ? [{ bot: b.bot, plan: plans[i] }] : []));
    // Encoded once the numbers are final (after a move): for the log, not the outbox (its rows name their messages).
    const updateJson = (plan: BatchPlan) => (logInTransaction ? [] : plan.updates.map((u) => json(u.payload)));
    const results = () => batches.map((b, i) => {
      const plan = plans[i];
      return plan ? { plan, conversations, contacts, updateJson: updateJson(plan) } : notFound("bot");
    });
    if (writing.length === 0) return { last: before.then(results) };
    /**
     * Another writer numbered since the plan (a plan from memory): its rows and outbox rows
     * moved in the write, the plan moves once the write has answered (each plan once).
     */
    const moved = new Set<BatchPlan>();
    const moveNumbers = (written: IncomingBatchWritten) => {
      for (const { bot, plan } of writing) {
        const shift = written.shifts.get(bot.id);
        if (!shift || moved.has(plan)) continue;
        // A log appended in the transaction before the write's answer took the plan's numbers.
        if (logInTransaction && db.kind === "postgres") throw new Error("a batch's numbers moved after its updates were appended");
        moved.add(plan);
        shiftPlanNumbers(plan, shift);
      }
    };
    const appended = () => writing.map(({ bot, plan }) => ({ botId: bot.id, updates: plan.updates }));
    // The write's own promise is the step: when it fails, its error (not the aborted transaction's
    // refusal of the statements behind it, answered in the same read) is the one reported.
    let written!: Promise<IncomingBatchWritten>;
    const bots = writing.map(({ bot, plan }) => ({
      botId: bot.id, ownerId: bot.owner_id, base: plan.base, counters: plan.counters, contacts: plan.contacts, conversations: plan.conversations,
      messages: plan.messageWrites, touches: plan.touches,
      outbox: logInTransaction ? [] : plan.messages.flatMap((m) => (m.update ? [{ updateId: m.update.update_id, messageRef: m.message.id }] : [])),
    }));
    const writes = inOrder(db, [
      () => (written = fromMemory?.alone ? writeKnownBatchAlone(tx, bots, fromMemory.planned) : writeIncomingBatch(tx, bots, fromMemory?.planned)),
      // PGlite sends the append after the write's answer (one statement at a time): the moved numbers go into the log.
      () => !logInTransaction ? Promise.resolve()
        : db.kind === "postgres" ? logInTransaction.append(tx, appended())
          : written.then((rows) => {
            moveNumbers(rows);
            return logInTransaction.append(tx, appended());
          }),
    ] as const);
    // With INTAKE_TRANSACTIONS above 1 the next transaction may look up beside these writes.
    writesSent();
    // When `before` fails (the lock), the writes behind it fail too: its failure is the one reported.
    const answered = Promise.all([before, writes]).catch(async (err: unknown) => {
      await before;
      throw err;
    });
    return {
      last: answered.then(([, [rows]]) => {
        for (const c of rows.contacts) contacts.set(c.id, c);
        for (const c of [...rows.conversations, ...rows.touched]) conversations.set(c.id, c);
        moveNumbers(rows);
        return results();
      }),
    };
  }
}

