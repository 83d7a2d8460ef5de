// What a contact's e-mail and phone may be, wherever they come from (the intake API, the
// cabinet's contact edit).

/** RFC 5321's limit on an address. */
export const MAX_EMAIL_LENGTH = 254;
/** E.164 has at most 15 digits; room for spaces, dashes and brackets people type. */
export const MAX_PHONE_LENGTH = 32;
/** Digits with the separators people write, an optional leading +. */
export const PHONE_PATTERN = "^\\+?[0-9][0-9 ()./-]{2,31}$";
