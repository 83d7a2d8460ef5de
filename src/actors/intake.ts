// IntakeActor: one per bot per process; group commit for the bot's incoming messages. Every
// message that arrives while a batch is being written waits for the next batch; a batch is
// committed by the process's IntakeCommitter (one transaction, shared with the other bots'
// ready batches: a handful of statements whatever its size) and followed by one pipelined
// publish of its updates.
// Each request is answered when its batch is committed and durable in the update log.
//
// The queue is the actor's mailbox: batches run one at a time, outside the actor system's
// per-message mailbox so that a request only waits for the batch in flight, never a queue.
import type { ActorHooks } from "./system.ts";
import { toConversation, toMessage } from "../db/view.ts";
import { conflict, isDependencyOutage } from "../core/errors.ts";
import { noEffects, type Effects, type PendingUpdate } from "../core/events.ts";
import type { Accepted } from "./conversation.ts";
import type { Committed, IntakeCommitter } from "./intake-committer.ts";
import type { IntakeItem } from "./intake-plan.ts";

/**
 * Why: bounds one bot's share of a shared transaction (its rows in the statements, one batch's
 * memory), so a hot bot leaves room for the others; a busier bot runs full batches back to back.
 */
export const MAX_INTAKE_BATCH = 256;

export interface IntakeDeps {
  /** The process's committer, shared by every bot's actor. */
  committer: Pick<IntakeCommitter, "commit">;
  /** Makes a batch's committed updates durable in the log and wakes pollers; resolves when they are. */
  publishUpdates(botId: string, updates: PendingUpdate[]): Promise<void>;
  /** Removes published rows from the outbox; nobody waits for it (the relay republishes what is left). */
  forgetPublished(botId: string, updateIds: number[]): void;
  /** Live views and push (best effort, after commit). */
  publishEvents(effects: Effects): void;
  /**
   * Right after a batch commits, before its updates reach the log: a poll parked in this
   * process may be answered from them (they are durable in the outbox). True when one of the
   * bot's polls is parked here: the batch's events and log append then wait a turn. Must not throw.
   */
  committed?(botId: string, updates: PendingUpdate[]): boolean;
  /**
   * Present when the update log lives in the same database (embedded): updates are written
   * by the batch's own transaction (the committer's) instead of through the outbox, and after
   * commit pollers are only woken (`wake`), nothing is published.
   */
  logInTransaction?: { wake(botId: string, updates: PendingUpdate[]): Promise<void> };
  /**
   * PGlite: a commit resolves as microtasks, without the event loop reading any socket, so a
   * bot's next batch waits a turn for the requests already on their way (else batches of one).
   * On PostgreSQL the commit's answer is itself a socket read, and the committer takes what it
   * is handed a turn later: a second turn here only made each bot's cycle an event-loop
   * iteration longer (10 bots ×0.92–1.00 → ×1.08–1.15 of the naive server, docs/decisions.md round 14).
   */
  turnBetweenBatches: boolean;
}

interface Waiting {
  item: IntakeItem;
  resolve(accepted: Accepted): void;
  reject(err: unknown): void;
}

export class IntakeActor implements ActorHooks {
  private waiting: Waiting[] = [];
  private running: Promise<void> | undefined;

  constructor(
    private readonly deps: IntakeDeps,
    readonly botId: string,
  ) {}

  /** Wrapped: a bare promise would be adopted by ask(), holding the mailbox until the batch is written. */
  submit(item: IntakeItem): { accepted: Promise<Accepted> } {
    const accepted = new Promise<Accepted>((resolve, reject) => this.waiting.push({ item, resolve, reject }));
    this.kick();
    return { accepted };
  }

  async onStop(): Promise<void> {
    await this.running;
  }

  /**
   * Batch N+1 commits while batch N's updates are being published: a hot bot's throughput is
   * not the sum of both round trips. At most one batch publishes at a time, in order (a gap
   * between two batches is held back by readers until it closes, outbox/ordered-log.ts).
   */
  private kick(): void {
    if (this.running) return;
    this.running = (async () => {
      let publishing: Promise<void> = Promise.resolve();
      for (await eventLoopTurn(); this.waiting.length; this.deps.turnBetweenBatches && await eventLoopTurn()) {
        const batch = this.waiting.splice(0, MAX_INTAKE_BATCH);
        const committed = await this.commitOrAnswer(batch);
        const pollHere = committed ? this.offerCommitted(committed) : false;
        await publishing;
        publishing = committed ? this.publishAndAnswer(batch, committed, pollHere) : Promise.resolve();
      }
      await publishing;
      this.running = undefined;
      // Work that arrived while the last publish was awaited.
      if (this.waiting.length) this.kick();
    })();
  }

  /** The batch's transaction; on failure every request of it is answered here and undefined returned. */
  private async commitOrAnswer(batch: Waiting[]): Promise<Committed | undefined> {
    try {
      return await this.deps.committer.commit(batch[0]!.item.input.bot, batch.map((w) => w.item));
    } catch (err) {
      // One bad row must not fail its neighbours: alone, only it fails. An outage fails them all.
      if (batch.length > 1 && !isDependencyOutage(err)) {
        for (const w of batch) {
          const committed = await this.commitOrAnswer([w]);
          if (committed) await this.publishAndAnswer([w], committed);
        }
        return undefined;
      }
      for (const w of batch) w.reject(err);
      return undefined;
    }
  }

  /** Outbox path only: embedded, the log is written by the transaction itself and woken at once. True when a poll parked here took it. */
  private offerCommitted({ plan, updateJson }: Committed): boolean {
    if (!this.deps.committed || this.deps.logInTransaction || plan.updates.length === 0) return false;
    return this.deps.committed(this.botId, plan.updates.map((u, i) => ({ botId: this.botId, updateId: u.update_id, payload: u.payload, json: updateJson[i] })));
  }

  /**
   * Never throws: every request of the batch is answered. `pollFirst`: a poll parked here took
   * the batch, and its answer (actor → use case → route → socket, a chain of awaits on this
   * event loop) goes out before the batch's events and log append start; left in order, the
   * append's encoding and the events' snapshots ran between the poll's awaits and the bot
   * waited 0.1–0.9 ms longer (docs/decisions.md). The sender's acknowledgement still waits for the log.
   */
  private async publishAndAnswer(batch: Waiting[], committed: Committed, pollFirst = false): Promise<void> {
    if (pollFirst) await eventLoopTurn();
    const { plan } = committed;
    const answers = plan.outcomes.map((outcome) => (outcome.kind === "new" ? this.acceptedNew(committed, outcome.index) : undefined));
    this.deps.publishEvents(this.effectsOf(committed));
    const updates = plan.updates.map((u, i) => ({ botId: this.botId, updateId: u.update_id, payload: u.payload, json: committed.updateJson[i] }));
    let publishError: unknown;
    const inTransaction = this.deps.logInTransaction;
    if (updates.length && inTransaction) {
      // Durable with the commit; a lost wake-up only delays a poll until its next read.
      await inTransaction.wake(this.botId, updates).catch(() => undefined);
    } else if (updates.length) {
      try {
        await this.deps.publishUpdates(this.botId, updates);
        this.deps.forgetPublished(this.botId, updates.map((u) => u.updateId));
      } catch (err) {
        // Committed: the relay publishes them later; the sender retries and gets its repeat.
        publishError = err;
      }
    }
    plan.outcomes.forEach((outcome, i) => {
      const w = batch[i]!;
      if (outcome.kind === "other-channel") return w.reject(otherChannel(outcome.channel));
      if (outcome.kind === "repeat") {
        return w.resolve({ message: outcome.message, conversation: committed.conversations.get(outcome.message.conversation_id)!, repeated: true });
      }
      if (publishError !== undefined) return w.reject(publishError);
      const first = outcome.kind === "new" ? answers[i]! : answers[outcome.item];
      if (!first) return w.reject(new Error("a repeat's first request has no answer"));
      w.resolve(outcome.kind === "new" ? first : { ...first, repeated: true });
    });
  }

  private acceptedNew({ plan, conversations }: Committed, index: number): Accepted {
    const { message } = plan.messages[index]!;
    return { message, conversation: conversations.get(message.conversation_id)!, repeated: false };
  }

  /** The events live views expect, message by message: created, message, then a status move once. */
  private effectsOf({ plan, conversations, contacts }: Committed): Effects {
    const effects = noEffects();
    const announced = new Set<string>();
    for (const { message, chatId } of plan.messages) {
      const conversation = conversations.get(message.conversation_id)!;
      const contact = conversation.contact_id ? contacts.get(conversation.contact_id) : undefined;
      const view = toConversation(conversation, contact, message);
      const event = (kind: "conversation_created" | "message_created" | "conversation_updated") => ({
        kind, owner_id: conversation.owner_id, bot_id: this.botId, conversation: view, message: toMessage(message, conversation),
      });
      const first = !announced.has(chatId);
      announced.add(chatId);
      if (first && plan.createdChats.has(chatId)) effects.events.push(event("conversation_created"));
      effects.events.push(event("message_created"));
      if (first && !plan.createdChats.has(chatId) && plan.statusBefore.get(chatId) !== conversation.status) {
        effects.events.push(event("conversation_updated"));
      }
    }
    // Grouped by kind (each chat's own order kept: created, message, updated), so the batch's
    // events of a kind share one subject and travel as one bus message.
    effects.events.sort((a, b) => KIND_ORDER[a.kind as keyof typeof KIND_ORDER] - KIND_ORDER[b.kind as keyof typeof KIND_ORDER]);
    return effects;
  }
}

const KIND_ORDER = { conversation_created: 0, message_created: 1, conversation_updated: 2 } as const;

const otherChannel = (channel: string) =>
  conflict(`chat_id belongs to a conversation of channel ${channel}; a chat's channel is fixed when it is created`, "chat_of_other_channel");

/**
 * Lets the event loop read the sockets, so requests already on their way join the next batch.
 * PGlite runs queries synchronously and resolves them as microtasks: without this turn one
 * request is read, written and answered before the next is even accepted (batches of one).
 */
const eventLoopTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
