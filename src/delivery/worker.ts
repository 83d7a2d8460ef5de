// The delivery worker behind the `webhook` process (inside the one process when embedded): decides which
// bots this process delivers for and runs one actor per bot and kind, each under a lease, so
// any number of workers split the bots and a dead worker's bots are taken over once its
// leases expire.
//
// It learns about work three ways: bus wake-ups (`updates.<bot>` after an append, `webhooks.<bot>`
// after set/delete-webhook, `events.*.message_created` for callbacks), and a periodic scan that
// catches whatever the at-most-once bus dropped: bots with a webhook, bots with queued callbacks,
// outgoing messages whose event never arrived, and leases freed by a dead worker.
import { ChannelCallbackActor } from "./channel_callbacks.ts";
import { EventHookActor, EventHookIntake, type EventHookDeps } from "./event_hooks.ts";
import { listBotsWithEventWebhooks, listBotsWithPendingEvents } from "../db/event_webhooks.ts";
import type { SecretBox } from "../secrets.ts";
import { WebhookActor, type DeliveryDeps } from "./webhook.ts";
import type { EventBus, Unsubscribe } from "../bus/bus.ts";
import type { PlatformEvent } from "../core/events.ts";
import { CALLBACK_CHANNELS, hasCallback } from "../core/records.ts";
import type { Leases } from "../leases/leases.ts";
import type { Db } from "../db/driver.ts";
import type { Logger } from "../logger.ts";
import type { UpdateLog } from "../updates/log.ts";
import {
  enqueueCallback, enqueueMissedCallbacks, listBotsWithPendingCallbacks, listWebhookBotIds,
} from "../db/webhooks.ts";
import { REQUEST_TIMEOUT_MS, type BackoffOptions } from "./http.ts";
import type { LeaseKeeper } from "./lease.ts";
import { LeasedWorker } from "./leased_worker.ts";
import { AttemptRecorder } from "./recorder.ts";
import type { NewAttempt } from "../db/webhooks.ts";
import type { Resolver } from "./ssrf.ts";
import {
  ALL_CONVERSATION_EVENTS, ALL_EVENT_HOOK_SUBJECTS, ALL_WAKE_SUBJECTS, ALL_WEBHOOK_SUBJECTS, botOfSubject, MESSAGE_CREATED_SUBJECTS, type WebhookChanged,
} from "../core/subjects.ts";

/** Why: how soon a lost wake-up, a new bot or a dead worker's bot is picked up; each scan costs a few queries and a lease attempt per unowned bot. */
const SCAN_INTERVAL_MS = 5000;
/** Why: outgoing messages whose event was lost are looked for this far back; older ones were seen by an earlier scan. */
const CALLBACK_CATCH_UP_MS = 3600 * 1000;
/** Why: lease attempts in flight at once during a scan, so thousands of bots do not open thousands of requests. */
const ACQUIRE_CONCURRENCY = 20;


type Kind = "webhook" | "callback" | "event";
type DeliveringActor = WebhookActor | ChannelCallbackActor | EventHookActor;

export interface WorkerOptions {
  /** The deps' leases by default; tests pass ones with a short TTL (and that TTL). */
  leases?: Leases;
  leaseTtlMs?: number;
  scanIntervalMs?: number;
  timeoutMs?: number;
  backoff?: BackoffOptions;
  resolve?: Resolver;
  /** Tests against a shared database deliver only their own bots. */
  accept?: (botId: string) => boolean;
}

/** What the worker runs on; the composition (services.ts) hands it in. */
export interface WorkerDeps {
  db: Db;
  bus: EventBus;
  logger: Logger;
  updates: UpdateLog;
  leases: Leases;
  leaseTtlMs: number;
  allowPrivate: boolean;
  /** The Telegram facade's shapes for bots whose webhook was set through it. */
  telegram: DeliveryDeps["telegram"];
  /** Counts one finished attempt (metrics). */
  recorded(attempt: NewAttempt, ok: boolean): void;
  /** Opens event webhooks' sealed secrets. */
  secretBox: SecretBox;
}

export class WebhookWorker extends LeasedWorker<Kind, DeliveringActor> {
  private readonly delivery: DeliveryDeps;
  private readonly events: EventHookDeps;
  private readonly intake: EventHookIntake;
  private readonly recorder: AttemptRecorder;
  private webhookBots = new Set<string>();
  /** Bots with (or once with) event webhooks: other bots' events cost no query (learnt from the scan and eventhooks.<bot> notices). */
  private eventHookBots = new Set<string>();

  constructor(
    private readonly deps: WorkerDeps,
    options: WorkerOptions = {},
  ) {
    const { logger } = deps;
    super({
      holderPrefix: "webhook-worker", bus: deps.bus, logger, accept: options.accept,
      leases: options.leases ?? deps.leases, leaseTtlMs: options.leaseTtlMs ?? deps.leaseTtlMs, scanIntervalMs: options.scanIntervalMs ?? SCAN_INTERVAL_MS,
      words: {
        actorFailed: "delivery actor message failed", leaseFailed: "taking a delivery lease failed", scanFailed: "webhook worker scan failed",
        serving: "delivering for bot", notServing: "no longer delivering for bot",
      },
    });
    this.recorder = new AttemptRecorder(deps.db, logger, (a) => {
      const ok = a.error === null && a.status_code !== null && a.status_code >= 200 && a.status_code < 300;
      deps.recorded(a, ok);
    });
    this.delivery = {
      db: deps.db,
      log: deps.updates,
      policy: { allowPrivate: deps.allowPrivate, resolve: options.resolve },
      recorder: this.recorder,
      logger,
      timeoutMs: options.timeoutMs ?? REQUEST_TIMEOUT_MS,
      backoff: options.backoff ?? {},
      now: Date.now,
      telegram: deps.telegram,
    };
    this.events = { ...this.delivery, secretBox: deps.secretBox };
    this.intake = new EventHookIntake(deps.db, logger);
  }

  protected subscribe(bus: EventBus): Unsubscribe[] {
    return [
      bus.subscribe(ALL_WAKE_SUBJECTS, (_data, subject) => this.onAppended(botOfSubject(subject))),
      bus.subscribe(ALL_WEBHOOK_SUBJECTS, (data, subject) => this.onWebhookChanged(botOfSubject(subject), data as WebhookChanged)),
      bus.subscribe(MESSAGE_CREATED_SUBJECTS, (data) => this.onMessageCreated(data as PlatformEvent)),
      bus.subscribe(ALL_CONVERSATION_EVENTS, (data) => this.onConversationEvent(data as PlatformEvent)),
      bus.subscribe(ALL_EVENT_HOOK_SUBJECTS, (_data, subject) => this.onEventHooksChanged(botOfSubject(subject))),
    ];
  }

  protected override async afterStop(): Promise<void> {
    await this.recorder.close();
  }

  /** Bots (and kinds) this worker delivers for now. */
  holds(kind: Kind, botId: string): boolean {
    return this.heldOf(kind, botId) !== undefined;
  }

  private onAppended(botId: string): void {
    if (!this.tellHeld("webhook", botId, (actor) => (actor as WebhookActor).wake()) && this.webhookBots.has(botId)) {
      void this.acquire("webhook", botId);
    }
  }

  private onWebhookChanged(botId: string, change: WebhookChanged): void {
    if (!this.tellHeld("webhook", botId, (actor) => (actor as WebhookActor).reload(Boolean(change.dropped)))) {
      // The actor reads the settings on start and gives the lease back if the webhook is gone.
      void this.acquire("webhook", botId);
    }
  }

  private async onMessageCreated(event: PlatformEvent): Promise<void> {
    const message = event.message;
    // A private note never leaves the team (the queue refuses it too: db/webhooks.ts).
    if (this.closed || message?.direction !== "out" || message.private || !hasCallback(event.conversation.channel)) return;
    if (!this.accepts(event.bot_id)) return;
    const queued = await enqueueCallback(this.deps.db, message.id, CALLBACK_CHANNELS);
    // Whoever holds the bot's callback lease wakes; otherwise whoever queued the row takes it.
    if (!this.tellHeld("callback", event.bot_id, (actor) => (actor as ChannelCallbackActor).wake()) && queued) {
      await this.acquire("callback", event.bot_id);
    }
  }

  private async onConversationEvent(event: PlatformEvent): Promise<void> {
    if (this.closed || !event?.bot_id || !event.conversation || !this.eventHookBots.has(event.bot_id) || !this.accepts(event.bot_id)) return;
    if (await this.intake.offer(event)) this.onEventQueued(event.bot_id);
  }

  private onEventHooksChanged(botId: string): void {
    // A hook created or a redeliver: events of this bot are offered from now on.
    this.eventHookBots.add(botId);
    this.onEventQueued(botId);
  }

  private onEventQueued(botId: string): void {
    if (!this.tellHeld("event", botId, (actor) => actor.wake())) void this.acquire("event", botId);
  }

  protected async scanOnce(): Promise<void> {
    const { db } = this.deps;
    const listedAt = Date.now();
    const webhookBots = (await listWebhookBotIds(db)).filter((id) => this.accepts(id));
    this.webhookBots = new Set(webhookBots);
    for (const held of [...this.held.values()]) {
      // Taken since the list was read: a webhook set meanwhile is not in it yet.
      if (held.kind === "webhook" && held.since < listedAt && !this.webhookBots.has(held.botId)) {
        this.retire(held.kind, held.botId, "webhook removed");
      }
    }
    await enqueueMissedCallbacks(db, new Date(Date.now() - CALLBACK_CATCH_UP_MS), CALLBACK_CHANNELS);
    const callbackBots = (await listBotsWithPendingCallbacks(db)).filter((id) => this.accepts(id));
    const eventBots = (await listBotsWithPendingEvents(db)).filter((id) => this.accepts(id));
    // Only added to: a scan's older list must not undo a notice that came meanwhile; a bot whose hooks are gone costs one query per event.
    for (const id of await listBotsWithEventWebhooks(db)) this.eventHookBots.add(id);
    const wanted: Array<[Kind, string]> = [
      ...webhookBots.map((id): [Kind, string] => ["webhook", id]),
      ...callbackBots.map((id): [Kind, string] => ["callback", id]),
      ...eventBots.map((id): [Kind, string] => ["event", id]),
    ];
    for (let i = 0; i < wanted.length && !this.closed; i += ACQUIRE_CONCURRENCY) {
      await Promise.all(wanted.slice(i, i + ACQUIRE_CONCURRENCY).map(([kind, botId]) => {
        // Held already: a wake-up may have been lost on the bus, so look again.
        if (this.tellHeld(kind, botId, (actor) => actor.wake())) return undefined;
        return this.acquire(kind, botId);
      }));
    }
  }

  protected create(
    kind: Kind, botId: string, keeper: LeaseKeeper, tell: (work: (actor: DeliveringActor) => Promise<void> | void) => void, finish: (reason: string) => void,
  ): DeliveringActor {
    if (kind === "webhook") return new WebhookActor(this.delivery, botId, keeper, tell as never, finish);
    if (kind === "event") return new EventHookActor(this.events, botId, keeper, tell as never, finish);
    return new ChannelCallbackActor(this.delivery, botId, keeper, tell as never, finish);
  }
}

/** Starts a worker (embedded all-in-one, the `webhook` process, tests). */
export function startDeliveryWorker(deps: WorkerDeps, options: WorkerOptions = {}): Promise<WebhookWorker> {
  return new WebhookWorker(deps, options).start();
}
