// An incoming mail, parsed (mailparser) into what the inbox and the bot need: the new text
// without the quoted reply (email-reply-parser, GitHub's rules), the full text kept apart,
// threading headers, and the signals that forbid an automatic answer.
import type { AddressObject, ParsedMail } from "mailparser";
import { automaticReason, bareMessageId, MAX_FULL_TEXT_CHARS, MAX_REFERENCES } from "../../core/mail.ts";
import { MAX_TEXT_LENGTH } from "../../core/limits.ts";

export interface MailAddress {
  address: string;
  name: string;
}

export interface MailAttachment {
  filename: string | null;
  content_type: string;
  size: number;
  /** Set once the bytes are in the file store: the message's attachment. */
  file_id?: string;
}

/** metadata.email of an incoming message (DESIGN §13.2), plus what the reader keeps beside it. */
export interface IncomingMail {
  message_id: string;
  subject: string;
  from: MailAddress;
  to: MailAddress[];
  cc: MailAddress[];
  in_reply_to: string | null;
  references: string[];
  /** The new text: what the person wrote in this mail. */
  text: string;
  /** The whole text part, quote included (bounded). */
  full_text: string;
  attachments: MailAttachment[];
  /** The attachments' bytes, in the order of `attachments` (never in metadata). */
  attachmentBytes: Buffer[];
  /** Why this mail must get no automatic answer; undefined for a person's mail. */
  automatic?: string;
  /** For a bounce: the Message-IDs of the mail that bounced, and why. */
  bounce?: { original_ids: string[]; reason: string };
}

const addresses = (value: AddressObject | AddressObject[] | undefined): MailAddress[] =>
  (Array.isArray(value) ? value : value ? [value] : [])
    .flatMap((a) => a.value)
    .filter((a) => a.address)
    .map((a) => ({ address: a.address!.toLowerCase(), name: a.name ?? "" }));

const header = (mail: ParsedMail, name: string): string | undefined => {
  const value = mail.headers.get(name);
  if (value === undefined || value === null) return undefined;
  if (typeof value === "string") return value;
  if (typeof value === "object" && "value" in (value as object)) return String((value as { value: unknown }).value);
  return String(value);
};

const idList = (value: string | string[] | undefined): string[] =>
  (Array.isArray(value) ? value : value ? value.split(/\s+/) : []).map(bareMessageId).filter(Boolean);

/** Bounce reports carry the original's headers in a message/rfc822 or text/rfc822-headers part. */
function bounceOf(mail: ParsedMail, raw: string, isReport: boolean, from: string): IncomingMail["bounce"] {
  const machine = /^(mailer-daemon|postmaster)@/i.test(from);
  if (!isReport && !machine) return undefined;
  const ids = [...raw.matchAll(/^Message-ID:\s*<([^>\r\n]+)>/gim)].map((m) => m[1]!.trim());
  const own = mail.messageId ? bareMessageId(mail.messageId) : "";
  const original = [...new Set(ids.filter((id) => id !== own).concat(idList(mail.inReplyTo), idList(mail.references)))];
  const status = raw.match(/^Diagnostic-Code:\s*(.+)$/im)?.[1]?.trim() ?? raw.match(/^Status:\s*(\S+)/im)?.[1];
  return { original_ids: original, reason: `bounced: ${status ?? mail.subject ?? "undeliverable"}`.slice(0, 500) };
}

export async function parseMail(source: Buffer | string, fallbackId: string): Promise<IncomingMail> {
  const raw = typeof source === "string" ? source : source.toString("latin1");
  // Loaded on first use: a process with no mail channel never pays mailparser's resident memory (docs/decisions.md).
  const [{ simpleParser }, { default: EmailReplyParser }] = await Promise.all([import("mailparser"), import("email-reply-parser")]);
  const mail = await simpleParser(source, { skipTextToHtml: true, skipImageLinks: true });
  const from = addresses(mail.from)[0] ?? { address: "", name: "" };
  const contentType = mail.headers.get("content-type") as { value?: string; params?: Record<string, string> } | undefined;
  const isReport = contentType?.value === "multipart/report" && /delivery-status/i.test(contentType.params?.["report-type"] ?? "");
  const fullText = (mail.text ?? "").replace(/\r\n/g, "\n").trim();
  let visible = fullText ? new EmailReplyParser().parseReply(fullText).trim() : "";
  if (!visible) visible = fullText || (mail.subject ?? "").trim() || "(no text)";
  const bounce = bounceOf(mail, raw, isReport, from.address);
  return {
    message_id: mail.messageId ? bareMessageId(mail.messageId) : fallbackId,
    subject: (mail.subject ?? "").trim(),
    from,
    to: addresses(mail.to),
    cc: addresses(mail.cc),
    in_reply_to: idList(mail.inReplyTo)[0] ?? null,
    references: idList(mail.references).slice(-MAX_REFERENCES),
    text: visible.length > MAX_TEXT_LENGTH ? `${visible.slice(0, MAX_TEXT_LENGTH - 1)}…` : visible,
    full_text: fullText.slice(0, MAX_FULL_TEXT_CHARS),
    attachments: mail.attachments.map((a) => ({ filename: a.filename ?? null, content_type: a.contentType, size: a.size })),
    attachmentBytes: mail.attachments.map((a) => a.content),
    automatic: automaticReason({
      from: from.address,
      autoSubmitted: header(mail, "auto-submitted"),
      precedence: header(mail, "precedence"),
      list: mail.headers.has("list-id") || mail.headers.has("list-unsubscribe"),
      deliveryReport: Boolean(bounce),
    }),
    bounce,
  };
}
