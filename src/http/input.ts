// The HTTP side of the hostile-input checks (core/input.ts): the schema for ids and cursors.
import { t } from "elysia";
import { MAX_SAFE_ID } from "../core/input.ts";

export {
  findUnstorableText, jsonTooDeep, MAX_DATE_MS, MAX_JSON_DEPTH, MAX_SAFE_ID, parseJsonBody, rejectUnstorable, tooDeepMessage,
  unstorableMessage, unstorableText,
} from "../core/input.ts";

/** An integer id, cursor or offset: bounded, so it always fits the bigint column it is compared with. */
export const SafeInt = (options: { minimum?: number; maximum?: number; description?: string; default?: number } = {}) =>
  t.Integer({ minimum: -MAX_SAFE_ID, maximum: MAX_SAFE_ID, ...options });
