// Reads one mailbox (imapflow): connects, takes in every mail above the stored UID cursor,
// then waits in IDLE for new ones; reconnects with backoff until stopped. Each mail is handed
// over and only then is the cursor moved, so a crash repeats at most the mail in hand, which
// the receiver drops by its Message-ID: none missed, none doubled. A changed UIDVALIDITY (the
// folder renumbered) starts over from the beginning of the folder on the same terms.
import type { ImapFlow } from "imapflow";
import { MAX_MAIL_BYTES } from "../../core/mail.ts";
import type { Logger } from "../../logger.ts";
import type { UrlPolicy } from "../ssrf.ts";
import type { ImapSettings } from "./config.ts";
import { explainMailError, mailTarget } from "./connect.ts";
import { backoffMs } from "../http.ts";

/** Loaded on first use: a process with no mail channel never pays imapflow's resident memory (docs/decisions.md). */
const loadImapFlow = async () => (await import("imapflow")).ImapFlow;

/** Why: IDLE must start soon after each command, or a mail arriving meanwhile waits for the next poll. */
const AUTO_IDLE_DELAY_MS = 200;
/** Why: some servers and NATs drop an IDLE left alone for long; RFC 2177 asks to renew within 29 minutes. */
const MAX_IDLE_MS = 5 * 60_000;
/** Why: a server that does not answer in this long is treated as gone and reconnected. */
const IMAP_TIMEOUT_MS = 30_000;
/** Why: reconnect attempts back off up to this, so a mailbox with a wrong password does not hammer its server. */
const RECONNECT_CAP_MS = 5 * 60_000;

export interface MailboxCursor {
  uidValidity: string;
  nextUid: number;
}

export interface MailSummary {
  uid: number;
  size: number;
  sender: string | null;
  subject: string | null;
}

/** What the reader reports to; every call may be repeated after a crash. */
export interface MailboxSink {
  cursor(mailbox: string): Promise<MailboxCursor | undefined>;
  /** Mail received before this is old history, not taken in on the first connection. */
  firstConnectSince(): Date;
  take(uid: number, uidValidity: string, source: Buffer): Promise<void>;
  refuse(mail: MailSummary, uidValidity: string, reason: string): Promise<void>;
  advance(mailbox: string, cursor: MailboxCursor): Promise<void>;
  /** The state of the connection, for the owner to see (undefined: fine). */
  status(error: string | undefined): void;
}

export class MailboxReader {
  private client: ImapFlow | undefined;
  private stopped = false;
  private dirty = false;
  private syncing: Promise<void> | undefined;
  private failures = 0;
  private wakeUp: (() => void) | undefined;

  constructor(
    private readonly settings: ImapSettings,
    private readonly policy: UrlPolicy,
    private readonly sink: MailboxSink,
    private readonly logger: Logger,
    /** Tests cut reconnect waits short. */
    private readonly reconnectBaseMs = 1000,
  ) {}

  /** Runs until stop(): connection failures are reported and retried, never thrown. */
  async run(): Promise<void> {
    while (!this.stopped) {
      try {
        await this.session();
        this.failures = 0;
      } catch (err) {
        if (this.stopped) break;
        this.failures++;
        const reason = explainMailError(err, this.settings.host, this.settings.port);
        this.sink.status(reason);
        this.logger.warn({ host: this.settings.host, user: this.settings.user, reason }, "mailbox connection failed");
      }
      if (this.stopped) break;
      await this.pause(backoffMs(Math.max(1, this.failures), { baseMs: this.reconnectBaseMs, capMs: RECONNECT_CAP_MS }));
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wakeUp?.();
    const client = this.client;
    this.client = undefined;
    // close(), not logout(): a stop must not wait on a server that may be gone.
    client?.close();
    await this.syncing?.catch(() => undefined);
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wakeUp = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  /** One connection: returns when it closes. */
  private async session(): Promise<void> {
    const target = await mailTarget(this.settings.host, this.settings.port, this.policy);
    const client = new (await loadImapFlow())({
      host: target.address, port: this.settings.port, secure: this.settings.tls, servername: target.servername,
      tls: { servername: target.servername },
      auth: { user: this.settings.user, pass: this.settings.password },
      logger: false, autoIdleDelay: AUTO_IDLE_DELAY_MS, maxIdleTime: MAX_IDLE_MS,
      connectionTimeout: IMAP_TIMEOUT_MS, greetingTimeout: IMAP_TIMEOUT_MS, socketTimeout: MAX_IDLE_MS + IMAP_TIMEOUT_MS,
    });
    const closed = new Promise<void>((resolve) => client.once("close", () => resolve()));
    client.on("error", (err: Error) => this.logger.debug({ err: err.message, host: this.settings.host }, "mailbox connection error"));
    this.client = client;
    if (this.stopped) return;
    await client.connect();
    const box = await client.mailboxOpen(this.settings.mailbox);
    this.sink.status(undefined);
    this.failures = 0;
    const uidValidity = String(box.uidValidity);
    client.on("exists", () => this.requestSync(client, uidValidity));
    this.requestSync(client, uidValidity);
    await closed;
    await this.syncing?.catch(() => undefined);
  }

  private requestSync(client: ImapFlow, uidValidity: string): void {
    this.dirty = true;
    if (this.syncing) return;
    this.syncing = (async () => {
      while (this.dirty && !this.stopped && client.usable) {
        this.dirty = false;
        await this.sync(client, uidValidity);
      }
    })()
      .catch((err) => {
        this.logger.warn({ err: explainMailError(err, this.settings.host, this.settings.port) }, "reading the mailbox failed; reconnecting");
        client.close();
      })
      .finally(() => (this.syncing = undefined));
  }

  private async sync(client: ImapFlow, uidValidity: string): Promise<void> {
    const mailbox = this.settings.mailbox;
    const stored = await this.sink.cursor(mailbox);
    let nextUid: number;
    let since: Date | undefined;
    if (stored && stored.uidValidity === uidValidity) nextUid = stored.nextUid;
    else {
      // A first connection, or the folder was renumbered: read from the start, bounded by date on a first one.
      nextUid = 1;
      if (!stored) since = this.sink.firstConnectSince();
    }
    const listed = await client.fetchAll(`${nextUid}:*`, { uid: true, size: true, envelope: true, internalDate: true }, { uid: true });
    // "n:*" always names the last message, even below n.
    const fresh = listed.filter((m) => m.uid >= nextUid).sort((a, b) => a.uid - b.uid);
    for (const m of fresh) {
      if (this.stopped || !client.usable) return;
      const summary: MailSummary = {
        uid: m.uid, size: m.size ?? 0,
        sender: m.envelope?.from?.[0]?.address ?? null, subject: m.envelope?.subject ?? null,
      };
      const received = m.internalDate ? new Date(m.internalDate) : undefined;
      if (since && received && received < since) {
        // History from before the mailbox was connected.
      } else if (summary.size > MAX_MAIL_BYTES) {
        await this.sink.refuse(summary, uidValidity, `larger than ${MAX_MAIL_BYTES / 1024 / 1024} MB (${summary.size} bytes)`);
      } else {
        const one = await client.fetchOne(String(m.uid), { source: true }, { uid: true });
        if (one && one.source) await this.sink.take(m.uid, uidValidity, one.source);
      }
      await this.sink.advance(mailbox, { uidValidity, nextUid: m.uid + 1 });
    }
    if (fresh.length === 0 && (!stored || stored.uidValidity !== uidValidity)) {
      // Remember the folder's numbering even when it is empty, so a later renumbering is noticed.
      await this.sink.advance(mailbox, { uidValidity, nextUid });
    }
  }
}

/** Connects and logs in, reading nothing: the "test connection" of the IMAP side. */
export async function checkImap(settings: ImapSettings, policy: UrlPolicy, timeoutMs = 10_000): Promise<{ ok: boolean; error?: string }> {
  let client: ImapFlow | undefined;
  try {
    const target = await mailTarget(settings.host, settings.port, policy);
    client = new (await loadImapFlow())({
      host: target.address, port: settings.port, secure: settings.tls, servername: target.servername, tls: { servername: target.servername },
      auth: { user: settings.user, pass: settings.password }, logger: false, disableAutoIdle: true,
      connectionTimeout: timeoutMs, greetingTimeout: timeoutMs, socketTimeout: timeoutMs,
    });
    client.on("error", () => undefined);
    await client.connect();
    await client.mailboxOpen(settings.mailbox, { readOnly: true });
    await client.logout();
    return { ok: true };
  } catch (err) {
    client?.close();
    const missing = (err as { serverResponseCode?: string }).serverResponseCode === "NONEXISTENT";
    return { ok: false, error: missing ? `mailbox: the folder ${settings.mailbox} does not exist` : explainMailError(err, settings.host, settings.port) };
  }
}
