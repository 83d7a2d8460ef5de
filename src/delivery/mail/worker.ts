// The mail worker (Procfile `mail`; inside the one process when embedded): one MailboxActor per
// bot with an e-mail channel, each under the lease `mail.<bot>`, so any number of mail
// processes split the mailboxes and each mailbox has exactly one reader; a dead process's
// mailboxes are taken over once its leases expire.
//
// Outgoing messages in e-mail conversations are queued (mail_deliveries) when their event
// arrives, and by a periodic catch-up scan for events the at-most-once bus dropped.
import { createHash } from "node:crypto";
import type { EventBus, Unsubscribe } from "../../bus/bus.ts";
import type { PlatformEvent } from "../../core/events.ts";
import { MESSAGE_CREATED_SUBJECTS } from "../../core/subjects.ts";
import { MAIL_SEND_PER_HOUR } from "../../core/mail.ts";
import type { DbBot } from "../../db/bots.ts";
import type { Db } from "../../db/driver.ts";
import { enqueueMail, enqueueMissedMail, isMailPending, listBotsWithPendingMail, listMailboxChannels } from "../../db/mail.ts";
import type { BackoffOptions } from "../http.ts";
import type { LeaseKeeper } from "../lease.ts";
import { LeasedWorker } from "../leased_worker.ts";
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

/** Each held mailbox is tagged with the config key its reader started with: a changed config restarts it. */
export class MailWorker extends LeasedWorker<"mailbox", MailboxActor, string> {
  private readonly deps: MailDeps;

  constructor(private readonly wiring: MailWorkerDeps, options: MailWorkerOptions = {}) {
    super({
      holderPrefix: "mail-worker", bus: wiring.bus, logger: wiring.logger, accept: options.accept,
      leases: options.leases ?? wiring.leases, leaseTtlMs: options.leaseTtlMs ?? wiring.leaseTtlMs, scanIntervalMs: options.scanIntervalMs ?? MAIL_SCAN_INTERVAL_MS,
      words: {
        actorFailed: "mail actor message failed", leaseFailed: "taking a mail lease failed", scanFailed: "mail worker scan failed",
        serving: "serving mailbox", notServing: "no longer serving mailbox",
      },
    });
    this.deps = {
      db: wiring.db, mail: wiring.mail, logger: wiring.logger, secretBox: wiring.secretBox,
      policy: { allowPrivate: wiring.allowPrivate, resolve: options.resolve },
      bot: (id) => wiring.bot(id),
      backoff: options.backoff ?? {}, sendPerHour: options.sendPerHour ?? MAIL_SEND_PER_HOUR, reconnectBaseMs: options.reconnectBaseMs, now: Date.now,
    };
  }

  protected subscribe(bus: EventBus): Unsubscribe[] {
    return [bus.subscribe(MESSAGE_CREATED_SUBJECTS, (data) => void this.onMessageCreated(data as PlatformEvent))];
  }

  /** One reader per mailbox: the lease is `mail.<bot>`. */
  protected override leaseKey(_kind: "mailbox", botId: string): string {
    return `mail.${botId}`;
  }

  holds(botId: string): boolean {
    return this.heldOf("mailbox", botId) !== undefined;
  }

  /** The mailbox connection's last problem in plain words, when this worker reads it. */
  connectionError(botId: string): Promise<string | undefined> | undefined {
    return this.heldOf("mailbox", botId)?.ref.ask((actor) => actor.connectionError);
  }

  private async onMessageCreated(event: PlatformEvent): Promise<void> {
    const message = event.message;
    if (this.closed || message?.direction !== "out" || message.private || event.conversation.channel !== "email" || !this.accepts(event.bot_id)) return;
    try {
      // Normally queued with the message itself; this covers a message stored before the channel had SMTP.
      const queued = (await enqueueMail(this.wiring.db, message.id)) || (await isMailPending(this.wiring.db, message.id));
      if (!this.tellHeld("mailbox", event.bot_id, (actor) => actor.wake()) && queued) await this.acquire("mailbox", event.bot_id, "");
    } catch (err) {
      this.wiring.logger.warn({ err, bot: event.bot_id }, "queueing a mail failed; the scan retries");
    }
  }

  protected async scanOnce(): Promise<void> {
    const { db } = this.wiring;
    await enqueueMissedMail(db, new Date(Date.now() - MAIL_CATCH_UP_MS));
    const mailboxes = new Map((await listMailboxChannels(db)).filter((c) => this.accepts(c.bot_id)).map((c) => [c.bot_id, configKey(c.config)]));
    const senders = (await listBotsWithPendingMail(db)).filter((id) => this.accepts(id));
    for (const { botId, ref, tag } of [...this.held.values()]) {
      const key = mailboxes.get(botId);
      // A changed mailbox config (or a removed one) restarts the reader with what is stored now.
      if (key !== undefined && key !== tag) this.retire("mailbox", botId, "mailbox settings changed");
      else if (key === undefined && !senders.includes(botId)) this.retire("mailbox", botId, "no mailbox and no mail to send");
      else ref.tell((actor) => actor.wake());
    }
    const wanted = new Set([...mailboxes.keys(), ...senders]);
    await Promise.all([...wanted].map((botId) => this.acquire("mailbox", botId, mailboxes.get(botId) ?? "")));
  }

  protected create(
    _kind: "mailbox", botId: string, keeper: LeaseKeeper, tell: (work: (actor: MailboxActor) => Promise<void> | void) => void, _finish: unknown, configKey: string,
  ): MailboxActor {
    return new MailboxActor(this.deps, botId, keeper, tell, configKey);
  }
}

export function startMailWorker(deps: MailWorkerDeps, options: MailWorkerOptions = {}): Promise<MailWorker> {
  return new MailWorker(deps, options).start();
}
