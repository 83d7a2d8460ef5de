// Hostile-input checks that run before any parser or validator sees a request (the HTTP
// guard, the facade's parameter reader, webhook replies): a body
// nested thousands deep makes validation and its error message cost seconds, and text
// PostgreSQL cannot store (U+0000, unpaired surrogates) would otherwise surface as a 500.
import { badRequest } from "./errors.ts";

/** No request shape nests deeper than ~6 levels (metadata, inline keyboards); 32 leaves room and keeps validation linear. */
export const MAX_JSON_DEPTH = 32;
/** Ids, offsets and cursors are PostgreSQL bigints; beyond 2^53 a JSON number no longer names one id exactly. */
export const MAX_SAFE_ID = Number.MAX_SAFE_INTEGER;

/** JavaScript's last valid Date (year 275760): a later timestamp would be an Invalid Date. */
export const MAX_DATE_MS = 8.64e15;

const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * True when the JSON text nests objects/arrays deeper than `limit`. One pass, constant work
 * per character, no allocation; invalid JSON is left for JSON.parse to refuse.
 */
export function jsonTooDeep(text: string, limit = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) {
      inString = true;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > limit) return true;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
    }
  }
  return false;
}

export const tooDeepMessage = () => `request body nests deeper than ${MAX_JSON_DEPTH} levels`;

/** Parses a JSON body after the depth check; throws 400 with a short sentence on either failure. */
export function parseJsonBody(text: string): unknown {
  if (jsonTooDeep(text)) throw badRequest(tooDeepMessage());
  try {
    return JSON.parse(text);
  } catch {
    throw badRequest("malformed request body: expected valid JSON");
  }
}

/** ES2024's String.prototype.isWellFormed, which Bun has and this project's TypeScript lib does not name. */
const wellFormed = (value: string) => (value as unknown as { isWellFormed(): boolean }).isWellFormed();

/** NUL, or a surrogate half without its partner: text PostgreSQL refuses to store. */
export function unstorableText(value: string): boolean {
  return value.includes("\u0000") || !wellFormed(value);
}

const join = (path: string, key: string) => (path ? `${path}.${key}` : key);

/**
 * The dotted name of the first string (or object key) in `value` that PostgreSQL cannot
 * store, or undefined. Depth is bounded by the parse-time check; the cap here is a backstop.
 */
export function findUnstorableText(value: unknown, path = "", depth = 0): string | undefined {
  if (typeof value === "string") return unstorableText(value) ? path || "value" : undefined;
  if (value === null || typeof value !== "object" || depth > MAX_JSON_DEPTH) return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findUnstorableText(value[i], join(path, String(i)), depth + 1);
      if (found) return found;
    }
    return undefined;
  }
  for (const [key, inner] of Object.entries(value)) {
    if (unstorableText(key)) return join(path, "(key)");
    const found = findUnstorableText(inner, join(path, key), depth + 1);
    if (found) return found;
  }
  return undefined;
}

export const unstorableMessage = (field: string) => `${field}: contains U+0000 or an unpaired surrogate, which cannot be stored`;

/** Refuses a request part holding text PostgreSQL cannot store, naming the field. */
export function rejectUnstorable(value: unknown, where: "" | "query " | "path "): void {
  const field = findUnstorableText(value);
  if (field) throw badRequest(`${where}${unstorableMessage(field)}`);
}
