// The e-mail channel's config as stored: passwords sealed (AES-GCM, like bot tokens) under
// `password_sealed`, never returned; reads show `password_set: true` instead.
import type { SecretBox } from "../../secrets.ts";

export type SmtpTls = "implicit" | "starttls" | "none";

export interface ImapSettings {
  host: string;
  port: number;
  tls: boolean;
  user: string;
  password: string;
  mailbox: string;
}

export interface SmtpSettings {
  host: string;
  port: number;
  /** "opportunistic" only for SMTP_URL's smtp://: STARTTLS when offered. */
  tls: SmtpTls | "opportunistic";
  user?: string;
  password?: string;
  from_address: string;
  from_name?: string;
}

export interface MailSettings {
  imap?: ImapSettings;
  smtp?: SmtpSettings;
}

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * The config to store: each password given is sealed; a server block given without a
 * password keeps the one stored before (a form that never shows passwords can save).
 */
export function sealMailConfig(box: SecretBox, next: Json, stored: Json): Json {
  const out: Json = { ...next };
  for (const part of ["imap", "smtp"] as const) {
    const given = next[part];
    if (!isObject(given)) continue;
    const { password, password_set: _shown, password_sealed: _forged, ...rest } = given;
    const before = isObject(stored[part]) ? (stored[part] as Json).password_sealed : undefined;
    const sealed = typeof password === "string" && password !== "" ? box.seal(password) : before;
    out[part] = sealed === undefined ? rest : { ...rest, password_sealed: sealed };
  }
  return out;
}

/** What an API response shows: no password, sealed or not. */
export function maskMailConfig(config: Json): Json {
  const out: Json = { ...config };
  for (const part of ["imap", "smtp"] as const) {
    const block = config[part];
    if (!isObject(block)) continue;
    const { password: _p, password_sealed, ...rest } = block;
    out[part] = { ...rest, password_set: typeof password_sealed === "string" || typeof _p === "string" };
  }
  return out;
}

/** The settings a connection needs, passwords opened; undefined parts are not configured. */
export function openMailConfig(box: SecretBox, config: Json): MailSettings {
  const open = (block: Json): string | undefined => (typeof block.password_sealed === "string" ? box.open(block.password_sealed) : undefined);
  const settings: MailSettings = {};
  if (isObject(config.imap)) {
    const i = config.imap;
    settings.imap = {
      host: String(i.host), port: Number(i.port), tls: i.tls !== false, user: String(i.user),
      password: open(i) ?? "", mailbox: typeof i.mailbox === "string" && i.mailbox ? i.mailbox : "INBOX",
    };
  }
  if (isObject(config.smtp)) {
    const s = config.smtp;
    settings.smtp = {
      host: String(s.host), port: Number(s.port), tls: (s.tls as SmtpTls) ?? "starttls",
      user: typeof s.user === "string" ? s.user : undefined, password: open(s),
      from_address: String(s.from_address), from_name: typeof s.from_name === "string" ? s.from_name : undefined,
    };
  }
  return settings;
}
