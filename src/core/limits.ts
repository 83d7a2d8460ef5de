// Limits shared by more than one layer, defined once.

/** docs/design.md §7: a request body (and what a compressed one expands to, and a webhook reply) is at most 64 KiB. */
export const MAX_BODY_BYTES = 64 * 1024;

/** Long enough for any real endpoint, short enough to keep rows and logs small. */
export const MAX_URL_LENGTH = 2048;

/** A message body, as Telegram's 4096-character limit. */
export const MAX_TEXT_LENGTH = 4096;
/** Operator notes are free text but bounded to keep the inbox row small. */
export const MAX_NOTE_LENGTH = 10_000;

/** Telegram allows 100 entities per message; more would only be someone inflating rows. */
export const MAX_ENTITIES = 100;
/** Telegram's callback_data limit: 1-64 bytes. */
export const MAX_CALLBACK_DATA_BYTES = 64;
/** Telegram's answerCallbackQuery text limit: 0-200 characters. */
export const MAX_CALLBACK_ANSWER_LENGTH = 200;
/** Telegram lets a bot answer a button press for a while; after that the visitor has long given up. */
export const CALLBACK_ANSWER_WINDOW_SECONDS = 15 * 60;

/** A report without from covers the last 30 days: the range a team lead looks at first. */
export const REPORT_DEFAULT_RANGE_DAYS = 30;
/** Two years and a day: long enough for a year-on-year look, short enough to bound a report's work. */
export const REPORT_MAX_RANGE_DAYS = 731;
/** Hourly points over more than a month are unreadable on a chart and large in CSV. */
export const REPORT_MAX_HOURLY_RANGE_DAYS = 31;
/** A rating's comment: a few sentences, not a letter. */
export const MAX_RATING_COMMENT_LENGTH = 1000;
