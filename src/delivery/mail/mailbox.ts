// MailboxActor: one per bot whose mail lease this process holds. It reads the bot's mailbox
// (IMAP, IDLE) into conversations and sends the bot's queued outgoing mail (SMTP), one at a
// time in message order, within the per-mailbox hourly limit. The queue and the read cursor
// live in the database, so a restart or takeover continues where the last holder stopped.
// What a mail means (a message in which conversation, which reply to send) is the domain's,
// handed in as `mail`.
import { randomUUID } from "node:crypto";
import type { DbBot } from "../../db/bots.ts";
import { findChannel } from "../../db/channels.ts";
import { findConversationById, type DbConversation } from "../../db/conversations.ts";
import {
  countMailSentSince, findMailCursor, finishMail, fixMailMessageId, listPendingMail, recordMailThread, recordRefusedMail,
  retryMailLater, saveMailCursor, type PendingMail,
} from "../../db/mail.ts";
import { findMessagesByIds, type DbMessage } from "../../db/messages.ts";
import type { Db } from "../../db/driver.ts";
import { openMailConfig, type MailSettings } from "./config.ts";
import { MailboxReader, type MailboxSink } from "./imap.ts";
import { parseMail, type IncomingMail } from "./parse.ts";
import { sendMail, type OutgoingMail } from "./smtp.ts";
import { backoffMs, type BackoffOptions } from "../http.ts";
import type { LeaseKeeper } from "../lease.ts";
import { LeasedPump } from "../pump.ts";
import type { UrlPolicy } from "../ssrf.ts";
import type { Logger } from "../../logger.ts";
import type { SecretBox } from "../../secrets.ts";
import { UPDATE_RETENTION_MS } from "../../updates/log.ts";

/** Why: one read of the queue per pump; a mailbox with more waiting is past its hourly limit anyway. */
const MAIL_BATCH = 50;
/** Why: the hourly send limit is a sliding window; when it is full, look again this much later. */
const SEND_LIMIT_RECHECK_MS = 60_000;
/** Why: mail is retried as long as webhook updates are kept (24 h), then marked failed. */
export const MAIL_RETENTION_MS = UPDATE_RETENTION_MS;

/** The reply mail an outgoing message becomes, or why it must not leave as mail. */
export type ReplyMail = { mail: OutgoingMail } | { error: string };

/** The e-mail channel's use cases the mailbox runs (domain/mail.ts). */
export interface MailUseCases {
  /** A parsed incoming mail into its conversation (or a bounce marking an outgoing one failed); answers what happened. */
  takeIn(bot: DbBot, mail: IncomingMail): Promise<string>;
  reply(message: DbMessage, conversation: DbConversation, messageIdHeader: string): Promise<ReplyMail>;
}

export interface MailDeps {
  db: Db;
  mail: MailUseCases;
  logger: Logger;
  secretBox: SecretBox;
  policy: UrlPolicy;
  bot(botId: string): Promise<DbBot | undefined>;
  backoff: BackoffOptions;
  /** Mails one mailbox may send an hour (MAIL_SEND_PER_HOUR; tests lower it). */
  sendPerHour: number;
  reconnectBaseMs?: number;
  now(): number;
}

export class MailboxActor extends LeasedPump<MailboxActor> {
  private reader: MailboxReader | undefined;
  private reading: Promise<void> | undefined;
  /** When the channel was configured: older mail is history, not taken in on a first connection. */
  private configuredAt = 0;
  /** The last connection problem, or undefined while connected. */
  connectionError: string | undefined;

  constructor(
    private readonly deps: MailDeps,
    readonly botId: string,
    lease: LeaseKeeper,
    tell: (work: (actor: MailboxActor) => Promise<void> | void) => void,
    /** The config this actor runs with; the worker restarts it when the config changes. */
    readonly configKey: string,
  ) {
    super(lease, tell);
  }

  async onStart(): Promise<void> {
    const settings = await this.settings();
    if (settings?.imap) {
      // Minus a minute: the mail server's clock and ours differ a little.
      this.configuredAt -= 60_000;
      this.reader = new MailboxReader(settings.imap, this.deps.policy, this.sink(), this.deps.logger, this.deps.reconnectBaseMs);
      this.reading = this.reader.run();
    }
    this.wake();
  }

  override async onStop(): Promise<void> {
    await this.reader?.stop();
    await this.reading;
    await super.onStop();
  }

  wake(): void {
    this.schedulePump();
  }

  private async settings(): Promise<MailSettings | undefined> {
    const channel = await findChannel(this.deps.db, this.botId, "email");
    if (!channel || !channel.is_active) return undefined;
    this.configuredAt = channel.updated_at.getTime();
    return openMailConfig(this.deps.secretBox, channel.config);
  }

  private sink(): MailboxSink {
    const { db } = this.deps;
    const leased = () => {
      // A lost lease: another process reads this mailbox now; stop writing at once.
      if (!this.lease.valid()) throw new Error("mail lease lost");
    };
    return {
      cursor: (mailbox) => findMailCursor(db, this.botId, mailbox).then((c) => c && { uidValidity: c.uid_validity, nextUid: c.next_uid }),
      firstConnectSince: () => new Date(this.configuredAt),
      take: async (uid, uidValidity, source) => {
        leased();
        const bot = await this.deps.bot(this.botId);
        if (!bot) return;
        const mail = await parseMail(source, `uid-${uidValidity}-${uid}.${this.botId}@botinbox.invalid`);
        const outcome = await this.deps.mail.takeIn(bot, mail);
        this.deps.logger.debug({ bot: this.botId, uid, outcome }, "mail taken in");
      },
      refuse: async (mail, uidValidity, reason) => {
        leased();
        await recordRefusedMail(db, this.botId, { uid_validity: uidValidity, uid: mail.uid, sender: mail.sender, subject: mail.subject, size_bytes: mail.size, reason });
        this.deps.logger.warn({ bot: this.botId, uid: mail.uid, size: mail.size, reason }, "mail refused");
      },
      advance: async (mailbox, cursor) => {
        leased();
        await saveMailCursor(db, this.botId, mailbox, cursor.uidValidity, cursor.nextUid);
      },
      status: (error) => (this.connectionError = error),
    };
  }

  protected async pump(): Promise<void> {
    const rows = await listPendingMail(this.deps.db, this.botId, MAIL_BATCH);
    if (rows.length === 0) return;
    let now = this.deps.now();
    let next = Infinity;
    const settings = await this.settings();
    for (const row of rows) {
      if (this.stopped || !this.lease.valid()) return;
      const due = row.next_attempt_at.getTime();
      if (due > now) {
        next = Math.min(next, due);
        continue;
      }
      if ((await countMailSentSince(this.deps.db, this.botId, new Date(now - 3600_000))) >= this.deps.sendPerHour) {
        next = Math.min(next, now + SEND_LIMIT_RECHECK_MS);
        break;
      }
      await this.send(row, settings, now);
      now = this.deps.now();
    }
    this.pumpAt(next, now);
  }

  private async send(row: PendingMail, settings: MailSettings | undefined, now: number): Promise<void> {
    const { db } = this.deps;
    if (!settings?.smtp) return finishMail(db, row.message_id, "failed", "not sent: the e-mail channel has no SMTP server");
    if (row.created_at.getTime() <= now - MAIL_RETENTION_MS) return finishMail(db, row.message_id, "failed", "not sent within 24 h");
    const [message] = await findMessagesByIds(db, [row.message_id]);
    const conversation = message && (await findConversationById(db, row.conversation_id));
    if (!message || !conversation || message.deleted_at) return finishMail(db, row.message_id, "failed", "the message no longer exists");
    const domain = settings.smtp.from_address.split("@")[1] ?? "botinbox.invalid";
    const header = row.message_id_header ?? `${randomUUID()}@${domain}`;
    const composed = await this.deps.mail.reply(message, conversation, header);
    if ("error" in composed) return finishMail(db, row.message_id, "failed", composed.error);
    if (!row.message_id_header) {
      // Fixed before the first attempt: a retry or a takeover sends the same mail, and a bounce finds it.
      await fixMailMessageId(db, row.message_id, header);
      await recordMailThread(db, this.botId, header, conversation.id, message.id, "out");
    }
    const outcome = await sendMail(settings.smtp, this.deps.policy, composed.mail);
    if (outcome.ok) return finishMail(db, row.message_id, "delivered", null);
    this.deps.logger.warn({ bot: this.botId, message: row.message_id, error: outcome.error }, "mail not sent");
    if (outcome.permanent) return finishMail(db, row.message_id, "failed", outcome.error);
    await retryMailLater(db, row.message_id, new Date(this.deps.now() + backoffMs(row.attempts + 1, this.deps.backoff)), outcome.error);
  }
}
