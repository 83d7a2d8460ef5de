// Sending through an SMTP server (nodemailer): a bot's mailbox for replies, or the
// platform's SMTP_URL for its own mail. The connection goes to the checked address.
import type { Transporter } from "nodemailer";
import type { UrlPolicy } from "../ssrf.ts";
import { explainMailError, mailTarget } from "./connect.ts";
import type { SmtpSettings } from "./config.ts";

/** Why: an SMTP server that has not answered in this long is down; the delivery is retried later. */
export const SMTP_TIMEOUT_MS = 20_000;

export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
  html?: string;
  messageId: string;
  inReplyTo?: string;
  references?: string[];
  headers?: Record<string, string>;
}

export type SendOutcome = { ok: true } | { ok: false; permanent: boolean; error: string };

async function transportFor(settings: SmtpSettings, policy: UrlPolicy, timeoutMs: number): Promise<Transporter> {
  const target = await mailTarget(settings.host, settings.port, policy);
  // Loaded on first use: most processes never send mail, and nodemailer is resident memory (docs/decisions.md).
  const { createTransport } = await import("nodemailer");
  return createTransport({
    host: target.address,
    port: settings.port,
    secure: settings.tls === "implicit",
    requireTLS: settings.tls === "starttls",
    ignoreTLS: settings.tls === "none",
    tls: { servername: target.servername },
    name: target.servername,
    auth: settings.user ? { user: settings.user, pass: settings.password ?? "" } : undefined,
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
    logger: false,
  });
}

/** Sends one mail; a 5xx answer is permanent (the message fails), anything else is retried. */
export async function sendMail(settings: SmtpSettings, policy: UrlPolicy, mail: OutgoingMail, timeoutMs = SMTP_TIMEOUT_MS): Promise<SendOutcome> {
  let transport: Transporter | undefined;
  try {
    transport = await transportFor(settings, policy, timeoutMs);
    await transport.sendMail({
      from: settings.from_name ? { name: settings.from_name, address: settings.from_address } : settings.from_address,
      to: mail.to,
      subject: mail.subject,
      text: mail.text,
      html: mail.html,
      messageId: `<${mail.messageId}>`,
      inReplyTo: mail.inReplyTo ? `<${mail.inReplyTo}>` : undefined,
      references: mail.references?.map((r) => `<${r}>`),
      headers: mail.headers,
    });
    return { ok: true };
  } catch (err) {
    const code = (err as { responseCode?: number }).responseCode;
    return { ok: false, permanent: typeof code === "number" && code >= 500, error: explainMailError(err, settings.host, settings.port) };
  } finally {
    transport?.close();
  }
}

/** Connects, greets and logs in, sending nothing. */
export async function checkSmtp(settings: SmtpSettings, policy: UrlPolicy, timeoutMs = 10_000): Promise<{ ok: boolean; error?: string }> {
  let transport: Transporter | undefined;
  try {
    transport = await transportFor(settings, policy, timeoutMs);
    await transport.verify();
    return { ok: true };
  } catch (err) {
    return { ok: false, error: explainMailError(err, settings.host, settings.port) };
  } finally {
    transport?.close();
  }
}

/** SMTP_URL (`smtp://user:pass@host:port`, `smtps://…`) as settings; MAIL_FROM is the sender. */
export function smtpUrlSettings(url: string, from: string): SmtpSettings {
  const u = new URL(url);
  const implicit = u.protocol === "smtps:";
  const match = from.match(/^\s*(.*?)\s*<([^>]+)>\s*$/);
  return {
    host: u.hostname.replace(/^\[|\]$/g, ""),
    port: u.port ? Number(u.port) : implicit ? 465 : 587,
    // smtp:// upgrades with STARTTLS when the server offers it, as mail servers do among themselves.
    tls: implicit ? "implicit" : "opportunistic",
    user: u.username ? decodeURIComponent(u.username) : undefined,
    password: u.password ? decodeURIComponent(u.password) : undefined,
    from_address: match ? match[2]! : from.trim(),
    from_name: match && match[1] ? match[1].replace(/^"|"$/g, "") : undefined,
  };
}
