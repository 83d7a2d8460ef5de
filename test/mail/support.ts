// Fixtures for the e-mail channel tests: a file's client and user, a Dovecot mailbox and a
// capturing SMTP server, a mail worker scoped to the file's bots, and mail builders.
import { afterAll, beforeAll } from "bun:test";
import { randomUUID } from "node:crypto";
import { startMailWorker, type MailWorker, type MailWorkerOptions } from "../../src/workers/mail.ts";
import { createTestBot, registerUser, testClient, type Client, type TestBot, type TestUser } from "../support/harness.ts";
import { describeMail, hasDovecot, startDovecot, startSmtpSink, type Dovecot, type SmtpSink } from "./servers.ts";

export { describeMail, hasDovecot };

/** Fast scans and reconnects so the tests take seconds; production keeps the named defaults. */
export const FAST_MAIL: MailWorkerOptions = { scanIntervalMs: 200, reconnectBaseMs: 100, backoff: { baseMs: 50, capMs: 400 } };

export interface MailFixture {
  client: Client;
  alice: TestUser;
  dovecot: Dovecot;
  smtp: SmtpSink;
  worker: MailWorker;
  mine: Set<string>;
}

export function mailFixture(options: MailWorkerOptions = {}): MailFixture {
  const fx = { mine: new Set<string>() } as MailFixture;
  beforeAll(async () => {
    if (!hasDovecot) return;
    fx.client = await testClient();
    fx.alice = await registerUser(fx.client);
    [fx.dovecot, fx.smtp] = await Promise.all([startDovecot(), startSmtpSink()]);
    fx.worker = await startMailWorker(fx.client.services, { ...FAST_MAIL, accept: (id) => fx.mine.has(id), ...options });
  }, 30_000);
  afterAll(async () => {
    if (!hasDovecot) return;
    await fx.worker.stop();
    await Promise.all([fx.dovecot.stop(), fx.smtp.stop()]);
  }, 30_000);
  return fx;
}

export function emailConfig(dovecot: Dovecot, smtp: SmtpSink, box = dovecot.newMailbox()) {
  return {
    imap: { host: "127.0.0.1", port: dovecot.port, tls: false, user: box.user, password: box.password },
    smtp: { host: "127.0.0.1", port: smtp.port, tls: "none", from_address: "support@shop.example", from_name: "Shop Support" },
  };
}

export interface MailBot extends TestBot {
  /** Its own Dovecot mailbox. */
  box: { user: string; password: string };
  deliver(raw: string): Promise<void>;
}

/** A bot whose e-mail channel reads a mailbox of its own and sends through the fixture's SMTP server. */
export async function mailBot(fx: MailFixture): Promise<MailBot> {
  const bot = await createTestBot(fx.client, fx.alice);
  const box = fx.dovecot.newMailbox();
  const res = await fx.client.patch(`/api/bots/${bot.id}/channels`, { channel_type: "email", config: emailConfig(fx.dovecot, fx.smtp, box) }, fx.alice.token);
  if (res.status !== 200) throw new Error(JSON.stringify(res.body));
  fx.mine.add(bot.id);
  return { ...bot, box, deliver: (raw) => fx.dovecot.deliver(raw, box.user) };
}

export interface MailSpec {
  from?: string;
  subject?: string;
  text?: string;
  messageId?: string;
  inReplyTo?: string;
  references?: string[];
  headers?: Record<string, string>;
}

/** A raw RFC 822 mail, as a mail server would store it. */
export function rawMail(spec: MailSpec = {}): { raw: string; messageId: string } {
  const messageId = spec.messageId ?? `${randomUUID()}@customer.example`;
  const lines = [
    `From: ${spec.from ?? "Jane Doe <jane@customer.example>"}`,
    "To: Shop Support <support@shop.example>",
    `Subject: ${spec.subject ?? "Where is my order?"}`,
    `Message-ID: <${messageId}>`,
    `Date: ${new Date().toUTCString()}`,
    ...(spec.inReplyTo ? [`In-Reply-To: <${spec.inReplyTo}>`] : []),
    ...(spec.references ? [`References: ${spec.references.map((r) => `<${r}>`).join(" ")}`] : []),
    ...Object.entries(spec.headers ?? {}).map(([k, v]) => `${k}: ${v}`),
    "MIME-Version: 1.0",
    "Content-Type: text/plain; charset=utf-8",
    "",
    spec.text ?? "Hello, my order has not arrived.",
  ];
  return { raw: lines.join("\r\n").replace(/\r?\n/g, "\r\n") + "\r\n", messageId };
}

export async function until<T>(what: string, probe: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(25);
  }
}

/** The bot's conversations in the inbox. */
export async function inboxOf(fx: MailFixture, bot: TestBot): Promise<any[]> {
  return (await fx.client.get(`/api/inbox?bot_id=${bot.id}`, fx.alice.token)).body.result;
}

export async function detail(fx: MailFixture, id: string): Promise<any> {
  return (await fx.client.get(`/api/inbox/${id}`, fx.alice.token)).body.result;
}

/** A delivery status notification (RFC 3464) for a mail we sent, as a receiving server writes it. */
export function bounceMail(originalId: string, to: string): string {
  const boundary = "bounce-boundary-1";
  return [
    "From: Mail Delivery System <MAILER-DAEMON@mx.customer.example>",
    "To: support@shop.example",
    "Subject: Undelivered Mail Returned to Sender",
    `Message-ID: <bounce-${Date.now()}-${Math.random()}@mx.customer.example>`,
    "Auto-Submitted: auto-replied",
    "MIME-Version: 1.0",
    `Content-Type: multipart/report; report-type=delivery-status; boundary="${boundary}"`,
    "",
    `--${boundary}`,
    "Content-Type: text/plain",
    "",
    `I'm sorry to have to inform you that your message could not be delivered to ${to}.`,
    "",
    `--${boundary}`,
    "Content-Type: message/delivery-status",
    "",
    "Reporting-MTA: dns; mx.customer.example",
    "",
    `Final-Recipient: rfc822; ${to}`,
    "Action: failed",
    "Status: 5.1.1",
    "Diagnostic-Code: smtp; 550 5.1.1 <" + to + ">: Recipient address rejected: User unknown",
    "",
    `--${boundary}`,
    "Content-Type: text/rfc822-headers",
    "",
    "From: Shop Support <support@shop.example>",
    `To: ${to}`,
    "Subject: Re: hello",
    `Message-ID: <${originalId}>`,
    "",
    `--${boundary}--`,
    "",
  ].join("\r\n");
}

export const mailsTo = (fx: MailFixture, address: string) => fx.smtp.received.filter((m) => m.to.includes(address));
