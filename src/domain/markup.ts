// reply_markup as Telegram checks it: inline keyboards of callback and url buttons (and the
// kinds the server passes through without acting on), reply keyboards, remove_keyboard.
import { badRequest } from "../core/errors.ts";
import { MAX_CALLBACK_DATA_BYTES, MAX_URL_LENGTH } from "../core/limits.ts";

/** Inline keyboards and the like; generous, but a bounded row. */
export const MAX_REPLY_MARKUP_BYTES = 10_000;
/** Telegram shows at most 100 buttons in a keyboard. */
export const MAX_BUTTONS = 100;
/** A button label longer than this cannot be shown on a phone anyway. */
export const MAX_BUTTON_TEXT_LENGTH = 256;

/** Inline button kinds other than callback_data and url: accepted (Telegram has them), shown disabled by the widget. */
const OTHER_INLINE_KINDS = ["web_app", "login_url", "switch_inline_query", "switch_inline_query_current_chat",
  "switch_inline_query_chosen_chat", "copy_text", "callback_game", "pay"];

type Markup = Record<string, unknown>;

const buttonError = (why: string) => badRequest(`can't parse inline keyboard button: ${why}`);

function rowsOf(markup: Markup, field: string): unknown[][] {
  const rows = markup[field];
  if (!Array.isArray(rows) || !rows.every(Array.isArray)) throw badRequest(`reply_markup: ${field} must be an array of button rows`);
  if (rows.flat().length > MAX_BUTTONS) throw badRequest(`reply_markup: more than ${MAX_BUTTONS} buttons`);
  return rows as unknown[][];
}

function checkLabel(text: unknown): void {
  if (typeof text !== "string" || text.trim() === "") throw badRequest("reply_markup: every button needs a non-empty text");
  if (text.length > MAX_BUTTON_TEXT_LENGTH) throw badRequest(`reply_markup: a button text is longer than ${MAX_BUTTON_TEXT_LENGTH} characters`);
}

function checkInlineButton(raw: unknown): void {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) throw buttonError("a button must be an object");
  const button = raw as Markup;
  checkLabel(button.text);
  if (button.callback_data !== undefined) {
    if (typeof button.callback_data !== "string" || button.callback_data === "") throw badRequest("BUTTON_DATA_INVALID");
    if (Buffer.byteLength(button.callback_data) > MAX_CALLBACK_DATA_BYTES) throw badRequest("BUTTON_DATA_INVALID");
    return;
  }
  if (button.url !== undefined) {
    if (typeof button.url !== "string" || button.url.trim() === "" || button.url.length > MAX_URL_LENGTH) throw badRequest("BUTTON_URL_INVALID");
    return;
  }
  if (!OTHER_INLINE_KINDS.some((kind) => button[kind] !== undefined)) throw buttonError("Text buttons are unallowed in the inline keyboard");
}

function checkKeyboardButton(raw: unknown): void {
  if (typeof raw === "string") return checkLabel(raw);
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) throw badRequest("reply_markup: a keyboard button must be a string or an object");
  checkLabel((raw as Markup).text);
}

/** null when absent; throws Telegram's 400s for a markup its clients would refuse. */
export function checkReplyMarkup(markup: Markup | undefined): Markup | null {
  if (markup === undefined) return null;
  if (JSON.stringify(markup).length > MAX_REPLY_MARKUP_BYTES) throw badRequest(`reply_markup: larger than ${MAX_REPLY_MARKUP_BYTES} bytes`);
  if (markup.inline_keyboard !== undefined) for (const row of rowsOf(markup, "inline_keyboard")) row.forEach(checkInlineButton);
  if (markup.keyboard !== undefined) for (const row of rowsOf(markup, "keyboard")) row.forEach(checkKeyboardButton);
  return markup;
}

/** The label of the message's inline button carrying this callback_data; undefined when there is none. */
export function callbackButtonLabel(markup: Markup | null, data: string): string | undefined {
  const rows = markup?.inline_keyboard;
  if (!Array.isArray(rows)) return undefined;
  const button = rows.flatMap((row) => (Array.isArray(row) ? row : [])).find((b) => (b as Markup | null)?.callback_data === data) as Markup | undefined;
  return button ? String(button.text) : undefined;
}
