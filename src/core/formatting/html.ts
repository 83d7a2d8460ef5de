// Telegram's parse_mode "HTML": the tags Telegram documents, HTML character references, and
// Telegram's refusals (an unknown tag, an unclosed or mismatched one). Output is plain text
// plus entities; nothing of the markup survives, so the result is safe to render as text.
import type { EntityType, MessageEntity } from "../updates.ts";
import { ParseError, type Parsed } from "./model.ts";

const SIMPLE_TAGS: Record<string, EntityType> = {
  b: "bold", strong: "bold", i: "italic", em: "italic", u: "underline", ins: "underline",
  s: "strikethrough", strike: "strikethrough", del: "strikethrough", "tg-spoiler": "spoiler", code: "code", pre: "pre",
};
const NAMED: Record<string, string> = { lt: "<", gt: ">", amp: "&", quot: '"', apos: "'", nbsp: "\u00a0" };
const START_TAG = /^<([a-zA-Z][a-zA-Z0-9-]*)((?:\s+[a-zA-Z_:][a-zA-Z0-9_:.-]*(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'=<>`]+))?)*)\s*\/?>/;
const END_TAG = /^<\/([a-zA-Z][a-zA-Z0-9-]*)\s*>/;
const ATTRIBUTE = /([a-zA-Z_:][a-zA-Z0-9_:.-]*)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?/g;
const REFERENCE = /^&(#\d{1,7}|#[xX][0-9a-fA-F]{1,6}|[a-zA-Z]{2,8});/;

interface Open {
  tag: string;
  type: EntityType | null;
  start: number;
  url?: string;
  /** <code class="language-x"> directly inside <pre>: names the pre's language, adds no entity. */
  language?: string;
}

const byteOffset = (src: string, at: number) => Buffer.byteLength(src.slice(0, at));

function decodeReference(ref: string): string | undefined {
  if (ref[0] !== "#") return NAMED[ref.toLowerCase()];
  const code = ref[1] === "x" || ref[1] === "X" ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
  return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : undefined;
}

export const decodeText = (raw: string) =>
  raw.replace(/&(#\d{1,7}|#[xX][0-9a-fA-F]{1,6}|[a-zA-Z]{2,8});/g, (all, ref: string) => decodeReference(ref) ?? all);

function attributes(raw: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of raw.matchAll(ATTRIBUTE)) out[m[1]!.toLowerCase()] = decodeText(m[2] ?? m[3] ?? m[4] ?? "");
  return out;
}

function opened(src: string, at: number, tag: string, attrs: Record<string, string>, parent: Open | undefined, length: number): Open {
  if (tag in SIMPLE_TAGS) {
    if (tag === "code" && parent?.tag === "pre" && parent.start === length) {
      const language = /^language-(.+)$/.exec(attrs.class ?? "")?.[1];
      if (language) parent.language = language;
      return { tag, type: null, start: length };
    }
    return { tag, type: SIMPLE_TAGS[tag]!, start: length };
  }
  if (tag === "a") {
    const url = attrs.href?.trim();
    if (!url) throw new ParseError(`Tag "a" must have attribute "href" at byte offset ${byteOffset(src, at)}`);
    return { tag, type: "text_link", start: length, url };
  }
  if (tag === "span") {
    if (attrs.class !== "tg-spoiler") throw new ParseError(`Tag "span" must have class "tg-spoiler" at byte offset ${byteOffset(src, at)}`);
    return { tag, type: "spoiler", start: length };
  }
  if (tag === "blockquote") return { tag, type: "expandable" in attrs ? "expandable_blockquote" : "blockquote", start: length };
  // Custom emoji need Telegram's sticker sets: the emoji character itself stands in.
  if (tag === "tg-emoji") return { tag, type: null, start: length };
  throw new ParseError(`Unsupported start tag "${tag}" at byte offset ${byteOffset(src, at)}`);
}

export function parseHtml(src: string): Parsed {
  let text = "";
  const entities: MessageEntity[] = [];
  const stack: Open[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    if (c === "<") {
      const rest = src.slice(i, i + 2048);
      const end = END_TAG.exec(rest);
      if (end) {
        const tag = end[1]!.toLowerCase();
        const top = stack.pop();
        if (!top) throw new ParseError(`Unexpected end tag at byte offset ${byteOffset(src, i)}`);
        if (top.tag !== tag) {
          throw new ParseError(`Unmatched end tag at byte offset ${byteOffset(src, i)}, expected "</${top.tag}>", found "</${tag}>"`);
        }
        if (top.type && text.length > top.start) {
          const entity: MessageEntity = { type: top.type, offset: top.start, length: text.length - top.start };
          if (top.url) entity.url = top.url;
          if (top.language) entity.language = top.language;
          entities.push(entity);
        }
        i += end[0].length;
        continue;
      }
      const start = START_TAG.exec(rest);
      if (!start) throw new ParseError(`Can't find end of the tag starting at byte offset ${byteOffset(src, i)}`);
      const tag = start[1]!.toLowerCase();
      stack.push(opened(src, i, tag, attributes(start[2] ?? ""), stack.at(-1), text.length));
      i += start[0].length;
      continue;
    }
    if (c === "&") {
      const ref = REFERENCE.exec(src.slice(i, i + 12));
      const decoded = ref && decodeReference(ref[1]!);
      if (ref && decoded !== undefined) {
        text += decoded;
        i += ref[0].length;
        continue;
      }
    }
    text += c;
    i++;
  }
  const unclosed = stack.at(-1);
  if (unclosed) throw new ParseError(`Can't find end tag corresponding to start tag "${unclosed.tag}"`);
  return { text, entities };
}
