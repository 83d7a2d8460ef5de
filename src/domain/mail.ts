// The e-mail channel's use cases: a parsed incoming mail becomes a message in its thread's
// conversation (or marks a bounced outgoing one failed), and an outgoing message becomes the
// reply mail that answers the conversation's last incoming one.
import { createHash } from "node:crypto";
import { bareMessageId, MAX_REFERENCES, normaliseSubject, replySubject } from "../core/mail.ts";
import type { DbBot } from "../db/bots.ts";
import type { DbConversation } from "../db/conversations.ts";
import type { DbMessage } from "../db/messages.ts";
import { findMailAnswered, findMailThreads, markMailBounced, recordMailThread } from "../db/mail.ts";
import type { IncomingMail } from "../delivery/mail/parse.ts";
import type { OutgoingMail } from "../delivery/mail/smtp.ts";
import type { ReplyMail } from "../delivery/mail/mailbox.ts";
import type { Logger } from "../logger.ts";
import { takeIn, type ConversationDeps } from "./conversations.ts";
import { MAX_CHAT_FILE_BYTES, type StoredFile } from "../core/files.ts";
import { findMessagesByClientIds } from "../db/intake.ts";
import type { FileStore } from "../files/store.ts";
import { storeUpload, storedFile } from "./files.ts";

export type MailOutcome = "taken" | "bounce" | "ignored";

/** The metadata.email of an incoming message (DESIGN §13.2) and what is kept beside it. */
export function mailMetadata(mail: IncomingMail): Record<string, unknown> {
  return {
    message_id: mail.message_id,
    subject: mail.subject,
    from: mail.from,
    to: mail.to,
    cc: mail.cc,
    in_reply_to: mail.in_reply_to,
    references: mail.references,
    attachments: mail.attachments,
    full_text: mail.full_text,
    ...(mail.automatic ? { automatic: mail.automatic } : {}),
  };
}

/** A thread without known ancestors is the sender's mails under one subject. */
export function senderThreadChatId(mail: IncomingMail): string {
  const subject = createHash("sha256").update(normaliseSubject(mail.subject)).digest("hex").slice(0, 16);
  return `email:${mail.from.address}:${subject}`;
}

export type MailIntakeDeps = ConversationDeps & { logger: Logger; files: FileStore };

/** Attachments go to the file store (the message's attachments); one refused (too large, a type not accepted) stays listed only. */
async function storeAttachments(deps: MailIntakeDeps, botId: string, chatId: string, mail: IncomingMail): Promise<StoredFile[]> {
  const stored: StoredFile[] = [];
  for (const [i, attachment] of mail.attachments.entries()) {
    const bytes = mail.attachmentBytes[i];
    if (!bytes) continue;
    try {
      const file = await storeUpload(deps, (async function* () { yield new Uint8Array(bytes); })(), {
        botId, chatId, uploadedBy: "user", name: attachment.filename ?? undefined, maxBytes: MAX_CHAT_FILE_BYTES,
      });
      attachment.file_id = file.id;
      stored.push(storedFile(file));
    } catch (err) {
      deps.logger.info({ bot: botId, file: attachment.filename, size: attachment.size, err: (err as Error).message }, "mail attachment not stored");
    }
  }
  return stored;
}

export async function takeInMail(deps: MailIntakeDeps, bot: DbBot, mail: IncomingMail): Promise<MailOutcome> {
  if (mail.bounce) {
    const threads = await findMailThreads(deps.db, bot.id, mail.bounce.original_ids);
    const sent = threads.filter((t) => t.direction === "out" && t.message_id);
    for (const t of sent) await markMailBounced(deps.db, t.message_id!, mail.bounce.reason);
    deps.logger.info({ bot: bot.id, bounced: sent.length, reason: mail.bounce.reason }, "bounce received");
    if (sent.length > 0) return "bounce";
  }
  if (!mail.from.address) return "ignored";
  const ancestors = [mail.in_reply_to, ...mail.references.slice().reverse()].filter((id): id is string => Boolean(id));
  const [thread] = await findMailThreads(deps.db, bot.id, ancestors);
  const chatId = thread?.chat_id ?? senderThreadChatId(mail);
  const clientMessageId = `email:${mail.message_id}`;
  const [earlier] = await findMessagesByClientIds(deps.db, bot.id, [clientMessageId]);
  if (earlier) {
    // Taken in before a crash moved the cursor: only the thread record may be missing.
    await recordMailThread(deps.db, bot.id, mail.message_id, earlier.conversation_id, earlier.id, "in");
    return "taken";
  }
  const attachments = await storeAttachments(deps, bot.id, chatId, mail);
  const accepted = await takeIn(deps, chatId, {
    bot, channel: "email", text: mail.text, createdAt: new Date(), contactKey: `email:${mail.from.address}`,
    contact: { externalUserId: null, firstName: null, lastName: null, name: mail.from.name || null, email: mail.from.address, phone: null },
    fromId: mail.from.address, metadata: { email: mailMetadata(mail) }, clientMessageId, attachments,
  });
  await recordMailThread(deps.db, bot.id, mail.message_id, accepted.conversation.id, accepted.message.id, "in");
  return "taken";
}

/** Why a message must not leave as mail, or undefined: no automatic answer to automatic mail. */
export function refuseAutomaticAnswer(message: DbMessage, answered: Record<string, unknown> | undefined): string | undefined {
  if (message.sender === "operator") return undefined;
  const automatic = answered?.automatic;
  return typeof automatic === "string" ? `not sent: no automatic answer to an automatic mail (${automatic})` : undefined;
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Text as simple HTML: paragraphs and line breaks, nothing a mail client could run. */
export const simpleHtml = (text: string): string =>
  `<div>${text.split(/\n{2,}/).map((p) => `<p>${escapeHtml(p).replace(/\n/g, "<br>")}</p>`).join("")}</div>`;

export type ComposedMail = { mail: OutgoingMail; answered: Record<string, unknown> | undefined } | { error: string };

/** The reply mail for an outgoing message: to the last incoming mail's sender, threaded under it. */
export async function composeReply(
  deps: { db: ConversationDeps["db"] }, message: DbMessage, conversation: DbConversation, messageIdHeader: string,
): Promise<ComposedMail> {
  const answered = await findMailAnswered(deps.db, conversation.id, message.message_id);
  const email = answered?.email as { message_id?: string; subject?: string; from?: { address?: string }; references?: string[] } | undefined;
  const to = email?.from?.address ?? answered?.contact_email ?? (conversation.chat_id.startsWith("email:") ? conversation.chat_id.split(":")[1] : undefined);
  if (!to) return { error: "not sent: the conversation has no e-mail address to reply to" };
  const parent = email?.message_id ? bareMessageId(email.message_id) : undefined;
  const references = [...(email?.references ?? []), ...(parent ? [parent] : [])].slice(-MAX_REFERENCES);
  return {
    answered: answered?.email,
    mail: {
      to,
      subject: replySubject(email?.subject),
      text: message.text,
      html: simpleHtml(message.text),
      messageId: messageIdHeader,
      inReplyTo: parent,
      references: references.length ? references : undefined,
      // RFC 3834: a bot's answer is itself automatic, so other robots do not answer it.
      headers: message.sender === "bot" ? { "Auto-Submitted": "auto-replied" } : undefined,
    },
  };
}

/** The reply mail an outgoing message becomes, or why it must not leave as mail (the mailbox sends it). */
export async function replyMail(
  deps: { db: ConversationDeps["db"] }, message: DbMessage, conversation: DbConversation, messageIdHeader: string,
): Promise<ReplyMail> {
  const composed = await composeReply(deps, message, conversation, messageIdHeader);
  if ("error" in composed) return composed;
  const refused = refuseAutomaticAnswer(message, composed.answered);
  return refused ? { error: refused } : { mail: composed.mail };
}
