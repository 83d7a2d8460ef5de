import { randomUUID } from "node:crypto";
import type { DbBot } from "../../db/bots.ts";
import type { Platform } from "../../platform.ts";
import { MAX_TEXT_LENGTH } from "../../core/limits.ts";
import type { AcceptedMessage } from "../messages/model.ts";
import { takeIn } from "../../domain/conversations.ts";
import { requireActiveChannel, toAccepted } from "../messages/service.ts";
import type { FormSubmission } from "./model.ts";

const digits = (phone: string) => phone.replace(/[^\d+]/g, "");

/** The conversation follows the person: by e-mail, else phone, else one per submission. */
export function formChatId(form: FormSubmission): string {
  if (form.contact_email) return `form:email:${form.contact_email.trim().toLowerCase()}`;
  if (form.contact_phone && digits(form.contact_phone)) return `form:phone:${digits(form.contact_phone)}`;
  return `form:${randomUUID()}`;
}

/** The inbox shows a submission as text: title, then contact and fields line by line. */
export function renderForm(form: FormSubmission): string {
  const lines = [`Form: ${form.form_title ?? form.form_id ?? "website form"}`];
  if (form.contact_name) lines.push(`Name: ${form.contact_name}`);
  if (form.contact_email) lines.push(`Email: ${form.contact_email}`);
  if (form.contact_phone) lines.push(`Phone: ${form.contact_phone}`);
  for (const [key, value] of Object.entries(form.fields ?? {})) {
    lines.push(`${key}: ${Array.isArray(value) ? value.join(", ") : value ?? "—"}`);
  }
  if (form.page_url) lines.push(`Page: ${form.page_url}`);
  const text = lines.join("\n");
  return text.length > MAX_TEXT_LENGTH ? `${text.slice(0, MAX_TEXT_LENGTH - 1)}…` : text;
}

/** `bot` is the one the integration_key names, already limited (http/public.ts). */
export async function acceptFormSubmission(platform: Platform, bot: DbBot, form: FormSubmission): Promise<AcceptedMessage> {
  await requireActiveChannel(platform, bot.id, "sitecms");
  const chatId = formChatId(form);
  const email = form.contact_email?.trim() ?? null;
  const phone = form.contact_phone?.trim() || null;
  const contactKey = email ? `email:${email.toLowerCase()}` : phone && digits(phone) ? `phone:${digits(phone)}` : `chat:${chatId}`;
  const { integration_key: _secret, ...raw } = form;
  const metadata: Record<string, unknown> = { form: raw };
  if (form.page_url) metadata.page_url = form.page_url;
  // No client_message_id on a form, so never a repeat: takeIn's idempotent branch is not reached.
  const accepted = await takeIn(platform, chatId, {
    bot, channel: "sitecms", text: renderForm(form), createdAt: new Date(), contactKey,
    contact: { externalUserId: null, firstName: null, lastName: null, name: form.contact_name ?? null, email, phone },
    fromId: null, metadata, clientMessageId: null,
  });
  return toAccepted(accepted);
}
