// Formatted text as Telegram stores it: plain text plus entities. A parse_mode is read into
// that model on the way in; explicit entities are checked against the text. Every refusal
// is Telegram's 400 "can't parse entities: …".
import { badRequest } from "../errors.ts";
import { MAX_ENTITIES, MAX_URL_LENGTH } from "../limits.ts";
import { ENTITY_TYPES, type EntityType, type MessageEntity } from "../updates.ts";
import { parseHtml } from "./html.ts";
import { parseMarkdown, parseMarkdownV2 } from "./markdown.ts";
import { ParseError, type Parsed } from "./model.ts";

export const PARSE_MODES = ["HTML", "MarkdownV2", "Markdown"] as const;

const PARSERS: Record<string, (src: string) => Parsed> = { html: parseHtml, markdownv2: parseMarkdownV2, markdown: parseMarkdown };

export interface FormattedInput {
  text: string;
  parse_mode?: string;
  entities?: unknown;
}

export interface Formatted {
  text: string;
  /** null: plain text (commands are still marked when the message is read). */
  entities: MessageEntity[] | null;
}

const cantParse = (why: string) => badRequest(`can't parse entities: ${why}`, "bad_entities");

function checkEntity(raw: unknown, i: number, textLength: number): MessageEntity {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) throw cantParse(`entities.${i} must be an object`);
  const e = raw as Record<string, unknown>;
  if (!ENTITY_TYPES.includes(e.type as EntityType)) throw cantParse(`entities.${i}.type is not one of ${ENTITY_TYPES.join(", ")}`);
  const { offset, length } = e;
  if (!Number.isSafeInteger(offset) || !Number.isSafeInteger(length) || (offset as number) < 0 || (length as number) < 1) {
    throw cantParse(`entities.${i}: offset must be an integer ≥ 0 and length ≥ 1`);
  }
  if ((offset as number) + (length as number) > textLength) throw cantParse(`entities.${i} ends after the text (UTF-16 code units)`);
  const entity: MessageEntity = { type: e.type as EntityType, offset: offset as number, length: length as number };
  if (e.type === "text_link") {
    if (typeof e.url !== "string" || e.url.trim() === "" || e.url.length > MAX_URL_LENGTH) throw cantParse(`entities.${i}.url must be a URL`);
    entity.url = e.url.trim();
  }
  if (e.type === "pre" && typeof e.language === "string" && e.language !== "") entity.language = e.language.slice(0, 64);
  return entity;
}

/** Telegram's order: by offset, the longer (outer) entity first. */
const byPosition = (a: MessageEntity, b: MessageEntity) => a.offset - b.offset || b.length - a.length;

/** Explicit entities win over parse_mode, as in Telegram; the text is then taken as it is. */
export function formatText(input: FormattedInput): Formatted {
  if (input.entities !== undefined && input.entities !== null) {
    if (!Array.isArray(input.entities)) throw cantParse("entities must be an array");
    if (input.entities.length > MAX_ENTITIES) throw cantParse(`more than ${MAX_ENTITIES} entities`);
    const entities = input.entities.map((e, i) => checkEntity(e, i, input.text.length)).sort(byPosition);
    return { text: input.text, entities: entities.length ? entities : null };
  }
  const mode = input.parse_mode?.trim();
  if (!mode) return { text: input.text, entities: null };
  const parser = PARSERS[mode.toLowerCase()];
  if (!parser) throw badRequest(`unsupported parse_mode "${mode}": use one of ${PARSE_MODES.join(", ")}`);
  let parsed: Parsed;
  try {
    parsed = parser(input.text);
  } catch (err) {
    if (err instanceof ParseError) throw cantParse(err.message);
    throw err;
  }
  if (parsed.text.trim() === "") throw badRequest("message text is empty");
  if (parsed.entities.length > MAX_ENTITIES) throw cantParse(`more than ${MAX_ENTITIES} entities`);
  return { text: parsed.text, entities: parsed.entities.length ? parsed.entities.sort(byPosition) : null };
}
