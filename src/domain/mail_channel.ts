// The e-mail channel as its owner configures it (docs/design.md §13.2): the mailbox (IMAP) and
// sending server (SMTP) settings, mail servers checked like webhook URLs, passwords sealed
// before they are stored, and the "test connection" operation.
import { Type } from "@sinclair/typebox";
import { badRequest } from "../core/errors.ts";
import type { Config } from "../config.ts";
import type { Queryable } from "../db/driver.ts";
import { findChannel } from "../db/channels.ts";
import { openMailConfig, sealMailConfig } from "../delivery/mail/config.ts";
import { MailServerRefused, explainMailError, mailTarget } from "../delivery/mail/connect.ts";
import { checkImap } from "../delivery/mail/imap.ts";
import { checkSmtp } from "../delivery/mail/smtp.ts";
import type { SecretBox } from "../secrets.ts";
import { requireMember } from "./members.ts";

/** Host names are at most 253 characters (RFC 1035). */
const MAX_HOST_LENGTH = 253;
/** Long enough for any real account name, app password or folder path. */
const MAX_MAIL_FIELD_LENGTH = 320;

const Host = Type.String({ minLength: 1, maxLength: MAX_HOST_LENGTH, pattern: "^[^\\s/:@]+$|^[0-9a-fA-F:]+$", description: "Host name or IP address" });
const Port = Type.Integer({ minimum: 1, maximum: 65535 });
const Field = Type.String({ minLength: 1, maxLength: MAX_MAIL_FIELD_LENGTH });

export const ImapConfig = Type.Object(
  {
    host: Host,
    port: Port,
    tls: Type.Boolean({ description: "Implicit TLS (port 993); false: plain, upgraded with STARTTLS when offered" }),
    user: Field,
    password: Type.Optional(Type.String({ maxLength: MAX_MAIL_FIELD_LENGTH, description: "Write-only; reads show password_set" })),
    mailbox: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_MAIL_FIELD_LENGTH, description: "Folder to read; INBOX by default" })),
  },
  { additionalProperties: true },
);

export const SmtpConfig = Type.Object(
  {
    host: Host,
    port: Port,
    tls: Type.Union([Type.Literal("implicit"), Type.Literal("starttls"), Type.Literal("none")], {
      description: "implicit: TLS from the start (465); starttls: upgrade required (587); none: plain",
    }),
    user: Type.Optional(Field),
    password: Type.Optional(Type.String({ maxLength: MAX_MAIL_FIELD_LENGTH, description: "Write-only; reads show password_set" })),
    from_address: Type.String({ format: "email", maxLength: MAX_MAIL_FIELD_LENGTH }),
    from_name: Type.Optional(Type.String({ maxLength: MAX_MAIL_FIELD_LENGTH })),
  },
  { additionalProperties: true },
);

type Json = Record<string, unknown>;

export type MailChannelDeps = { db: Queryable; secretBox: SecretBox; config: Pick<Config, "allowPrivateWebhooks"> };

/**
 * The e-mail config as it will be stored: servers checked against the private-address rule
 * and passwords sealed (a block without a password keeps the stored one).
 */
export async function prepareMailConfig(deps: MailChannelDeps, botId: string, config: Json): Promise<Json> {
  const policy = { allowPrivate: deps.config.allowPrivateWebhooks };
  for (const part of ["imap", "smtp"] as const) {
    const block = config[part] as { host?: unknown; port?: unknown } | undefined;
    if (!block || typeof block.host !== "string" || typeof block.port !== "number") continue;
    try {
      await mailTarget(block.host, block.port, policy);
    } catch (err) {
      if (err instanceof MailServerRefused) throw badRequest(`config.${part}.host: ${explainMailError(err, block.host, block.port)}`);
      throw err;
    }
  }
  const stored = (await findChannel(deps.db, botId, "email"))?.config ?? {};
  return sealMailConfig(deps.secretBox, config, stored);
}

export interface MailCheck {
  ok: boolean;
  error?: string;
}

/** Owner only: connects to the stored IMAP and SMTP servers and logs in, reading and sending nothing. */
export async function testMailChannel(deps: MailChannelDeps, userId: string, botId: string): Promise<{ imap: MailCheck; smtp: MailCheck }> {
  const bot = await requireMember(deps.db, userId, botId, "owner");
  const channel = await findChannel(deps.db, bot.id, "email");
  const settings = openMailConfig(deps.secretBox, channel?.config ?? {});
  const policy = { allowPrivate: deps.config.allowPrivateWebhooks };
  const missing = (what: string) => Promise.resolve({ ok: false, error: `not configured: set config.${what} on the email channel` });
  const [imap, smtp] = await Promise.all([
    settings.imap ? checkImap(settings.imap, policy) : missing("imap"),
    settings.smtp ? checkSmtp(settings.smtp, policy) : missing("smtp"),
  ]);
  return { imap, smtp };
}
