// The platform's own mail (password reset, invites) through SMTP_URL, sent from MAIL_FROM.
// SMTP_URL is the operator's own setting, not an owner's: no private-address rule applies.
import type { Config } from "../../config.ts";
import type { Logger } from "../../logger.ts";
import { sendMail, smtpUrlSettings } from "./smtp.ts";
import { randomUUID } from "node:crypto";

export interface PlatformMailer {
  /** false without SMTP_URL: the platform sends no mail. */
  configured: boolean;
  /** Sends in the background: a caller never waits on (or learns from) the mail server. */
  send(to: string, subject: string, text: string): void;
  /** Settles when every mail handed over has been tried (tests, shutdown). */
  idle(): Promise<void>;
}

export function platformMailer(config: Pick<Config, "smtpUrl" | "mailFrom">, logger: Logger): PlatformMailer {
  const pending = new Set<Promise<void>>();
  const settings = config.smtpUrl ? smtpUrlSettings(config.smtpUrl, config.mailFrom) : undefined;
  return {
    configured: Boolean(settings),
    send(to, subject, text) {
      if (!settings) return;
      const domain = settings.from_address.split("@")[1] ?? "botinbox.invalid";
      const job = sendMail(settings, { allowPrivate: true }, { to, subject, text, messageId: `${randomUUID()}@${domain}`, headers: { "Auto-Submitted": "auto-generated" } })
        .then((outcome) => {
          // The address is not logged: a log must not tell which addresses have accounts.
          if (!outcome.ok) logger.warn({ error: outcome.error, subject }, "platform mail not sent");
        })
        .finally(() => pending.delete(job));
      pending.add(job);
    },
    async idle() {
      await Promise.all([...pending]);
    },
  };
}
