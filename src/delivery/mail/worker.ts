// The mail worker (Procfile `mail`; inside the one process when embedded): one MailboxActor per
// bot with an e-mail channel, each under the lease `mail.<bot>`, so any number of mail
// processes split the mailboxes and each mailbox has exactly one reader; a dead process's
// mailboxes are taken over once its leases expire.
//
// Outgoing messages in e-mail conversations are queued (mail_deliveries) when their event
// arrives, and by a periodic catch-up scan for events the at-most-once bus dropped.
import { createHash, randomUUID } from "node:crypto";
import { ActorSystem, type ActorRef } from "../../actors/system.ts";
import type { EventBus, Unsubscribe } from "../../bus/bus.ts";
import type { PlatformEvent } from "../../core/events.ts";
import { MESSAGE_CREATED_SUBJECTS } from "../../core/subjects.ts";
import { MAIL_SEND_PER_HOUR } from "../../core/mail.ts";
import type { DbBot } from "../../db/bots.ts";
import type { Db } from "../../db/driver.ts";
import { enqueueMail, enqueueMissedMail, isMailPending, listBotsWithPendingMail, listMailboxChannels } from "../../db/mail.ts";
import type { BackoffOptions } from "../http.ts";
import { LeaseKeeper } from "../lease.ts";
import type { Resolver } from "../ssrf.ts";
import type { Leases } from "../../leases/leases.ts";
import type { Logger } from "../../logger.ts";
import type { SecretBox } from "../../secrets.ts";
import { MailboxActor, type MailDeps, type MailUseCases } from "./mailbox.ts";

/** Why: how soon a new mailbox, a changed config or a dead process's mailbox is picked up. */
export const MAIL_SCAN_INTERVAL_MS = 5000;
/** Why: outgoing messages whose event was lost are looked for this far back. */
const MAIL_CATCH_UP_MS = 3600 * 1000;

export interface MailWorkerOptions {
  leases?: Leases;
  leaseTtlMs?: number;
  scanIntervalMs?: number;
  backoff?: BackoffOptions;
  reconnectBaseMs?: number;
  sendPerHour?: number;
  resolve?: Resolver;
  /** Tests against a shared database read only their own bots' mailboxes. */
  accept?: (botId: string) => boolean;
}

interface Held {
  ref: ActorRef<MailboxActor>;
  keeper: LeaseKeeper;
  configKey: string;
}

/** What the worker runs on (services.ts hands it in). */
export interface MailWorkerDeps {
  db: Db;
  bus: EventBus;
  logger: Logger;
  leases: Leases;
  leaseTtlMs: number;
  secretBox: SecretBox;
  allowPrivate: boolean;
  mail: MailUseCases;
  bot(botId: string): Promise<DbBot | undefined>;
}

const configKey = (config: unknown) => createHash("sha256").update(JSON.stringify(config ?? null)).digest("hex");

export class MailWorker {
  readonly holder = `mail-worker-${randomUUID()}`;
  private readonly actors: ActorSystem;
  private readonly leases: Leases;
  private readonly ttlMs: number;
  private readonly deps: MailDeps;
  private readonly held = new Map<string, Held>();
  private readonly acquiring = new Set<string>();
  private subscription: Unsubscribe | undefined;
  private scanTimer: ReturnType<typeof setInterval> | undefined;
  private scanning: Promise<void> | undefined;
  private closed = false;

  constructor(private readonly wiring: MailWorkerDeps, private readonly options: MailWorkerOptions = {}) {
    this.actors = new ActorSystem({
      idleMs: Infinity,
      onError: (name, err) => wiring.logger.error({ err, actor: name }, "mail actor message failed"),
    });
    this.leases = options.leases ?? wiring.leases;
    this.ttlMs = options.leaseTtlMs ?? wiring.leaseTtlMs;
    this.deps = {
      db: wiring.db, mail: wiring.mail, logger: wiring.logger, secretBox: wiring.secretBox,
      policy: { allowPrivate: wiring.allowPrivate, resolve: options.resolve },
      bot: (id) => wiring.bot(id),
      backoff: options.backoff ?? {}, sendPerHour: options.sendPerHour ?? MAIL_SEND_PER_HOUR, reconnectBaseMs: options.reconnectBaseMs, now: Date.now,
    };
  }

  async start(): Promise<this> {
    this.subscription = this.wiring.bus.subscribe(MESSAGE_CREATED_SUBJECTS, (data) => void this.onMessageCreated(data as PlatformEvent));
    await this.wiring.bus.flush();
    await this.scan();
    this.scanTimer = setInterval(() => void this.scan(), this.options.scanIntervalMs ?? MAIL_SCAN_INTERVAL_MS);
    return this;
  }

  async stop(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.quiet();
    for (const held of this.held.values()) held.keeper.end();
    await this.scanning;
    await this.actors.close();
  }

  /** As a killed process (tests): work stops at once, leases are left to expire. */
  async crash(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.quiet();
    for (const held of this.held.values()) held.keeper.halt();
    await this.scanning;
    await this.actors.close();
  }

  holds(botId: string): boolean {
    return this.held.has(botId);
  }

  /** The mailbox connection's last problem in plain words, when this worker reads it. */
  connectionError(botId: string): Promise<string | undefined> | undefined {
    return this.held.get(botId)?.ref.ask((actor) => actor.connectionError);
  }

  private quiet(): void {
    clearInterval(this.scanTimer);
    this.subscription?.();
  }

  private accepts(botId: string): boolean {
    return !this.options.accept || this.options.accept(botId);
  }

  private async onMessageCreated(event: PlatformEvent): Promise<void> {
    const message = event.message;
    if (this.closed || message?.direction !== "out" || message.private || event.conversation.channel !== "email" || !this.accepts(event.bot_id)) return;
    try {
      // Normally queued with the message itself; this covers a message stored before the channel had SMTP.
      const queued = (await enqueueMail(this.wiring.db, message.id)) || (await isMailPending(this.wiring.db, message.id));
      const held = this.held.get(event.bot_id);
      if (held) held.ref.tell((actor) => actor.wake());
      else if (queued) await this.acquire(event.bot_id, undefined);
    } catch (err) {
      this.wiring.logger.warn({ err, bot: event.bot_id }, "queueing a mail failed; the scan retries");
    }
  }

  private scan(): Promise<void> {
    if (this.closed || this.scanning) return this.scanning ?? Promise.resolve();
    this.scanning = this.scanOnce()
      .catch((err) => this.wiring.logger.warn({ err }, "mail worker scan failed"))
      .finally(() => (this.scanning = undefined));
    return this.scanning;
  }

  private async scanOnce(): Promise<void> {
    const { db } = this.wiring;
    await enqueueMissedMail(db, new Date(Date.now() - MAIL_CATCH_UP_MS));
    const mailboxes = new Map((await listMailboxChannels(db)).filter((c) => this.accepts(c.bot_id)).map((c) => [c.bot_id, configKey(c.config)]));
    const senders = (await listBotsWithPendingMail(db)).filter((id) => this.accepts(id));
    for (const [botId, held] of [...this.held]) {
      const key = mailboxes.get(botId);
      // A changed mailbox config (or a removed one) restarts the reader with what is stored now.
      if (key !== undefined && key !== held.configKey) this.retire(botId, "mailbox settings changed");
      else if (key === undefined && !senders.includes(botId)) this.retire(botId, "no mailbox and no mail to send");
      else held.ref.tell((actor) => actor.wake());
    }
    const wanted = new Set([...mailboxes.keys(), ...senders]);
    await Promise.all([...wanted].map((botId) => this.acquire(botId, mailboxes.get(botId))));
  }

  private async acquire(botId: string, key: string | undefined): Promise<void> {
    if (this.closed || this.held.has(botId) || this.acquiring.has(botId) || !this.accepts(botId)) return;
    this.acquiring.add(botId);
    const leaseKey = `mail.${botId}`;
    const sentAt = Date.now();
    let won = false;
    try {
      won = await this.leases.acquire(leaseKey, this.holder);
    } catch (err) {
      this.wiring.logger.warn({ err, bot: botId }, "taking a mail lease failed");
    } finally {
      this.acquiring.delete(botId);
    }
    if (!won) return;
    if (this.closed) return void (await this.leases.release(leaseKey, this.holder).catch(() => undefined));
    const keeper = new LeaseKeeper(this.leases, leaseKey, this.holder, this.ttlMs, sentAt, (reason) => this.retire(botId, reason));
    const stored = key ?? "";
    const ref: ActorRef<MailboxActor> = this.actors.actorOf<MailboxActor>("mailbox", botId, () =>
      new MailboxActor(this.deps, botId, keeper, (work) => ref.tell(work), stored),
    );
    this.held.set(botId, { ref, keeper, configKey: stored });
    this.wiring.logger.debug({ bot: botId, holder: this.holder }, "serving mailbox");
    ref.tell(() => undefined);
  }

  private retire(botId: string, reason: string): void {
    const held = this.held.get(botId);
    if (!held) return;
    this.held.delete(botId);
    held.keeper.end();
    this.wiring.logger.debug({ bot: botId, reason }, "no longer serving mailbox");
    void this.actors.stop("mailbox", botId);
  }
}

export function startMailWorker(deps: MailWorkerDeps, options: MailWorkerOptions = {}): Promise<MailWorker> {
  return new MailWorker(deps, options).start();
}
