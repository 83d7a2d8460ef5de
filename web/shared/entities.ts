// Telegram's text + entities rendered as DOM nodes, shared by the widget and the cabinet.
// Safe by construction: text only ever becomes text nodes, elements come from a fixed
// list, and a link is made only for http(s), tg: and mailto: addresses, so nothing a bot or
// visitor sends can run script. Styles are inline so neither UI's stylesheet is needed.

export interface Entity {
  type: string;
  offset: number;
  length: number;
  url?: string;
  language?: string;
}

const TAGS: Record<string, keyof HTMLElementTagNameMap> = {
  bold: "b", italic: "i", underline: "u", strikethrough: "s", code: "code", pre: "pre", spoiler: "span",
  blockquote: "blockquote", expandable_blockquote: "blockquote", text_link: "a", url: "a", email: "a",
};
const LINK_PROTOCOLS = new Set(["http:", "https:", "tg:", "mailto:"]);
const STYLES: Record<string, string> = {
  code: "font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.92em;background:rgba(127,127,127,.15);border-radius:4px;padding:0 3px",
  pre: "font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.9em;background:rgba(127,127,127,.15);border-radius:6px;padding:6px 8px;margin:4px 0;white-space:pre-wrap;display:block",
  blockquote: "border-left:3px solid currentColor;padding-left:8px;margin:2px 0;opacity:.9;display:block",
  expandable_blockquote: "border-left:3px solid currentColor;padding-left:8px;margin:2px 0;opacity:.9;display:block",
  spoiler: "background:currentColor;border-radius:3px;cursor:pointer",
  text_link: "text-decoration:underline;color:inherit",
  url: "text-decoration:underline;color:inherit",
  email: "text-decoration:underline;color:inherit",
};

/** An address a link may open: http(s), tg: or mailto:, else null (javascript:, data:, …). */
export function safeUrl(raw: string | undefined | null): string | null {
  if (!raw) return null;
  try {
    const url = new URL(raw.trim());
    return LINK_PROTOCOLS.has(url.protocol) ? url.href : null;
  } catch {
    return null;
  }
}

function linkOf(entity: Entity, text: string): string | null {
  const shown = text.slice(entity.offset, entity.offset + entity.length);
  if (entity.type === "text_link") return safeUrl(entity.url);
  if (entity.type === "email") return safeUrl(`mailto:${shown}`);
  return safeUrl(/^[a-z][a-z0-9+.-]*:/i.test(shown) ? shown : `http://${shown}`);
}

function element(entity: Entity, text: string): HTMLElement {
  const tag = TAGS[entity.type]!;
  const href = tag === "a" ? linkOf(entity, text) : null;
  // A link to an unsafe address is shown as its text, not as a link.
  const el = document.createElement(tag === "a" && !href ? "span" : tag);
  if (href) {
    el.setAttribute("href", href);
    el.setAttribute("target", "_blank");
    el.setAttribute("rel", "noopener noreferrer nofollow");
  }
  const style = tag === "a" && !href ? undefined : STYLES[entity.type];
  // Through the CSSOM: the cabinet's Content-Security-Policy refuses style attributes, not this.
  if (style) el.style.cssText = style;
  if (entity.type === "spoiler") {
    el.setAttribute("role", "button");
    el.setAttribute("tabindex", "0");
    el.setAttribute("aria-label", "Spoiler: show");
    const reveal = () => {
      el.style.background = "none";
      el.removeAttribute("role");
      el.removeAttribute("aria-label");
    };
    el.addEventListener("click", reveal);
    el.addEventListener("keydown", (e) => {
      const key = (e as KeyboardEvent).key;
      if (key === "Enter" || key === " ") reveal();
    });
  }
  return el;
}

/**
 * The text with its entities applied. Entities may nest or overlap: the text is cut at
 * every entity boundary and each piece is wrapped in the entities covering it, outermost
 * first, so any list (even a malformed one) yields well-formed DOM.
 */
export function renderFormatted(text: string, entities: Entity[] | null | undefined): DocumentFragment {
  const fragment = document.createDocumentFragment();
  const usable = (Array.isArray(entities) ? entities : []).filter(
    (e) => e && TAGS[e.type] && Number.isInteger(e.offset) && Number.isInteger(e.length) && e.offset >= 0 && e.length > 0 && e.offset < text.length,
  );
  if (usable.length === 0) {
    fragment.append(text);
    return fragment;
  }
  const cuts = [...new Set([0, text.length, ...usable.flatMap((e) => [e.offset, Math.min(text.length, e.offset + e.length)])])].sort((a, b) => a - b);
  const outerFirst = [...usable].sort((a, b) => a.offset - b.offset || b.length - a.length);
  for (let i = 0; i + 1 < cuts.length; i++) {
    const from = cuts[i]!;
    const to = cuts[i + 1]!;
    let node: Node = document.createTextNode(text.slice(from, to));
    const covering = outerFirst.filter((e) => e.offset <= from && e.offset + e.length >= to);
    for (const entity of covering.reverse()) {
      const el = element(entity, text);
      el.append(node);
      node = el;
    }
    fragment.append(node);
  }
  return fragment;
}
