// E-mail rules that need no I/O: which mail must never get an automatic answer, how a
// subject is normalised for threading, and the limits of the e-mail channel.

/** Why: the bar; larger mail is refused and recorded rather than read into memory. */
export const MAX_MAIL_BYTES = 25 * 1024 * 1024;
/** Why: a mailbox sending more than this an hour looks like a loop or abuse to mail providers (Gmail's own limit is 500/day for consumer accounts). */
export const MAIL_SEND_PER_HOUR = 100;
/** Why: the whole mail (before the quote is stripped) kept in metadata, bounded so one long thread does not bloat a row. */
export const MAX_FULL_TEXT_CHARS = 100_000;
/** Why: a thread's References header grows with every reply; the last ones are what threading needs. */
export const MAX_REFERENCES = 20;

/** Headers that decide whether mail is automatic, lower-cased names. */
export interface AutomaticSignals {
  from: string;
  autoSubmitted?: string;
  precedence?: string;
  /** List-Id or List-Unsubscribe present: list mail. */
  list?: boolean;
  /** A delivery status report (multipart/report; report-type=delivery-status). */
  deliveryReport?: boolean;
}

/** Senders that are machines by convention; an answer to them reaches nobody or loops. */
const MACHINE_SENDER = /^(mailer-daemon|postmaster|no-?reply|do-?not-?reply|bounces?)([+\-_.].*)?@/i;

/** Why mail must get no automatic answer (RFC 3834, Precedence, machine senders), or undefined. */
export function automaticReason(s: AutomaticSignals): string | undefined {
  if (s.deliveryReport) return "bounce";
  const auto = s.autoSubmitted?.trim().toLowerCase();
  if (auto && !auto.startsWith("no")) return `auto-submitted: ${auto.split(";")[0]}`;
  const precedence = s.precedence?.trim().toLowerCase();
  if (precedence && ["bulk", "list", "junk"].includes(precedence)) return `precedence: ${precedence}`;
  if (s.list) return "list mail";
  if (MACHINE_SENDER.test(s.from.trim())) return "machine sender";
  return undefined;
}

/** "Re: Fwd: AW:  Order 42 " → "order 42": replies and forwards of a mail share its thread. */
export function normaliseSubject(subject: string): string {
  let s = subject.trim();
  for (;;) {
    const next = s.replace(/^(re|fwd?|aw|wg|sv|vs|antw|r|tr)(\[\d+\])?\s*:\s*/i, "").trim();
    if (next === s) break;
    s = next;
  }
  return s.replace(/\s+/g, " ").toLowerCase();
}

/** The reply's subject: the original with one "Re: " in front. */
export function replySubject(subject: string | undefined | null): string {
  const s = (subject ?? "").trim();
  if (!s) return "Re: your message";
  return /^re\s*:/i.test(s) ? s : `Re: ${s}`;
}

/** Message-IDs are compared without their angle brackets. */
export const bareMessageId = (id: string): string => id.trim().replace(/^<|>$/g, "");
