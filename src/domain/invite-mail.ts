// Invites are mailed to the invitee when the server sends mail (SMTP_URL).
import type { PlatformMailer } from "../delivery/mail/mailer.ts";

/** Answers whether the mail was handed to the mailer. */
export function mailInvite(mailer: PlatformMailer, to: string, inviter: string, inviteUrl: string): boolean {
  if (!mailer.configured) return false;
  mailer.send(
    to,
    "You are invited to answer conversations on botinbox",
    [
      `${inviter} invited you to their team on botinbox, to answer their customers' conversations.`,
      "",
      `Accept the invite here (log in or register with this address first): ${inviteUrl}`,
      "",
      "The invite is valid for 7 days. If you do not know the sender, ignore this mail.",
    ].join("\n"),
  );
  return true;
}
