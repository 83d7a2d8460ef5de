// Telegram's parse_mode "MarkdownV2" and the legacy "Markdown": the documented markers,
// backslash escapes and Telegram's refusals (a reserved character left unescaped, an
// entity never closed). Output is plain text plus entities.
import type { EntityType, MessageEntity } from "../updates.ts";
import { ParseError, type Parsed } from "./model.ts";

/** MarkdownV2: these must be escaped with "\" wherever they are not markup. */
const RESERVED_V2 = new Set("_*[]()~`>#+-=|{}.!");
const TOGGLES_V2: [string, EntityType][] = [["||", "spoiler"], ["__", "underline"], ["*", "bold"], ["_", "italic"], ["~", "strikethrough"]];
const TOGGLES_V1: [string, EntityType][] = [["*", "bold"], ["_", "italic"]];
const NAMES: Partial<Record<EntityType, string>> = {
  bold: "Bold", italic: "Italic", underline: "Underline", strikethrough: "Strikethrough", spoiler: "Spoiler", text_link: "TextUrl",
  code: "Code", pre: "Pre",
};

interface Open {
  marker: string;
  type: EntityType;
  start: number;
  at: number;
}

const byteOffset = (src: string, at: number) => Buffer.byteLength(src.slice(0, at));

class Builder {
  text = "";
  readonly entities: MessageEntity[] = [];
  add(type: EntityType, start: number, extra: Partial<MessageEntity> = {}) {
    if (this.text.length > start) this.entities.push({ type, offset: start, length: this.text.length - start, ...extra });
  }
}

/** Reads up to the closing fence; inside code only "`" and "\" are escaped (both versions accept "\" there in V2 only). */
function readUntil(src: string, from: number, fence: string, escapes: boolean, what: string, openedAt: number): { body: string; next: number } {
  let body = "";
  for (let i = from; i < src.length; i++) {
    if (escapes && src[i] === "\\" && i + 1 < src.length && (src[i + 1] === "\\" || src[i + 1] === fence[0] || src[i + 1] === ")")) {
      body += src[++i];
      continue;
    }
    if (src.startsWith(fence, i)) return { body, next: i + fence.length };
    body += src[i];
  }
  throw new ParseError(`Can't find end of ${what} entity at byte offset ${byteOffset(src, openedAt)}`);
}

/** ```lang\n…``` or `…`: a pre (with its language) or a code entity. */
function code(src: string, i: number, out: Builder, v2: boolean): number {
  const fence = src.startsWith("```", i) ? "```" : "`";
  const { body, next } = readUntil(src, i + fence.length, fence, v2, fence === "```" ? "Pre" : "Code", i);
  const start = out.text.length;
  if (fence === "`") {
    out.text += body;
    out.add("code", start);
    return next;
  }
  const firstLine = /^([^\s`]*)\n/.exec(body);
  out.text += firstLine ? body.slice(firstLine[0].length) : body;
  out.add("pre", start, firstLine?.[1] ? { language: firstLine[1] } : {});
  return next;
}

function link(src: string, i: number, out: Builder, v2: boolean, top: Open): number {
  // i points at "]"; a "(url)" must follow.
  if (src[i + 1] !== "(") {
    if (v2) throw new ParseError(`Character ']' is reserved and must be escaped with the preceding '\\'`);
    out.text += "]";
    return i + 1;
  }
  const { body, next } = readUntil(src, i + 2, ")", v2, "TextUrl", top.at);
  out.add("text_link", top.start, { url: body.trim() });
  return next;
}

function parse(src: string, v2: boolean): Parsed {
  const out = new Builder();
  const stack: Open[] = [];
  const toggles = v2 ? TOGGLES_V2 : TOGGLES_V1;
  let quoteStart: number | undefined;
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    const lineStart = i === 0 || src[i - 1] === "\n";
    if (c === "\\" && i + 1 < src.length && (v2 ? src.charCodeAt(i + 1) <= 126 : "_*`[".includes(src[i + 1]!))) {
      out.text += src[i + 1];
      i += 2;
      continue;
    }
    if (c === "`") {
      i = code(src, i, out, v2);
      continue;
    }
    if (c === "[") {
      stack.push({ marker: "[", type: "text_link", start: out.text.length, at: i });
      i++;
      continue;
    }
    if (c === "]" && stack.at(-1)?.marker === "[") {
      i = link(src, i, out, v2, stack.pop()!);
      continue;
    }
    if (v2 && c === ">" && lineStart) {
      quoteStart ??= out.text.length;
      i++;
      continue;
    }
    if (v2 && c === "\n" && quoteStart !== undefined && src[i + 1] !== ">") {
      out.add("blockquote", quoteStart);
      quoteStart = undefined;
    }
    // "__" after an open "_" closes the italic first (Telegram reads "___" the same way).
    const toggle = toggles.find(([marker]) => src.startsWith(marker, i) && !(marker === "__" && stack.at(-1)?.marker === "_"));
    if (toggle) {
      const [marker, type] = toggle;
      const at = stack.findIndex((o) => o.marker === marker);
      if (at >= 0) out.add(type, stack.splice(at, 1)[0]!.start);
      else if (!v2 && stack.length > 0) throw new ParseError(`Can't find end of the entity starting at byte offset ${byteOffset(src, stack[0]!.at)}`);
      else stack.push({ marker, type, start: out.text.length, at: i });
      i += marker.length;
      continue;
    }
    if (v2 && RESERVED_V2.has(c)) throw new ParseError(`Character '${c}' is reserved and must be escaped with the preceding '\\'`);
    out.text += c;
    i++;
  }
  const unclosed = stack[0];
  if (unclosed) {
    throw new ParseError(
      v2
        ? `Can't find end of ${NAMES[unclosed.type] ?? unclosed.type} entity at byte offset ${byteOffset(src, unclosed.at)}`
        : `Can't find end of the entity starting at byte offset ${byteOffset(src, unclosed.at)}`,
    );
  }
  if (quoteStart !== undefined) out.add("blockquote", quoteStart);
  return { text: out.text, entities: out.entities };
}

export const parseMarkdownV2 = (src: string) => parse(src, true);
export const parseMarkdown = (src: string) => parse(src, false);
