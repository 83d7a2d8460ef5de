// A tiny DOM builder: the cabinet's views are functions that return elements. Text always
// goes in as text nodes, never as HTML.

export type Child = Node | string | number | null | undefined | false | Child[];
type Handler = (event: any) => void;
export type Attrs = Record<string, string | number | boolean | null | undefined | Handler>;

/** Long enough to read a sentence. */
const TOAST_MS = 4_000;
/** How long a copy button says "Copied". */
const COPIED_MS = 1_500;

/** Set as properties (live state), not attributes (initial state). */
const PROPERTIES = new Set(["value", "checked", "disabled", "hidden", "selected", "textContent"]);

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs | null = null, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs ?? {})) {
    if (value === null || value === undefined || value === false) continue;
    if (typeof value === "function") el.addEventListener(key.slice(2).toLowerCase(), value);
    else if (key === "class") el.className = String(value);
    else if (PROPERTIES.has(key)) (el as any)[key] = value;
    else el.setAttribute(key, value === true ? "" : String(value));
  }
  append(el, children);
  return el;
}

export function append(parent: Node, children: Child[]): void {
  for (const child of children.flat(Infinity as 1) as Child[]) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

export function replace(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, children);
}

let toasts: HTMLElement | undefined;

/** A short notice in the corner, read out by screen readers. */
export function toast(message: string, kind: "ok" | "error" = "ok"): void {
  if (!toasts?.isConnected) {
    toasts = h("div", { class: "toasts", role: "status", "aria-live": "polite" });
    document.body.append(toasts);
  }
  const item = h("div", { class: `toast ${kind}` }, message);
  toasts.append(item);
  setTimeout(() => item.remove(), TOAST_MS);
}

/** The Clipboard API where the page is a secure context; a hidden textarea otherwise. */
export async function copyText(text: string): Promise<void> {
  try {
    await navigator.clipboard.writeText(text);
    return;
  } catch {}
  const area = h("textarea", { value: text, readonly: true, style: "position:fixed;opacity:0" });
  document.body.append(area);
  area.select();
  document.execCommand("copy");
  area.remove();
}

export function copyButton(label: string, text: () => string, accessibleName?: string): HTMLButtonElement {
  const button = h("button", {
    type: "button",
    class: "ghost small",
    "aria-label": accessibleName,
    onclick: async () => {
      await copyText(text());
      button.textContent = "Copied";
      toast("Copied to the clipboard");
      setTimeout(() => (button.textContent = label), COPIED_MS);
    },
  }, label);
  return button;
}

const sameDay = (a: Date, b: Date) => a.toDateString() === b.toDateString();

/** "14:05" today, "3 Mar, 14:05" before. */
export function formatTime(iso: string): string {
  const date = new Date(iso);
  const time = date.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
  return sameDay(date, new Date()) ? time : `${date.toLocaleDateString([], { day: "numeric", month: "short" })}, ${time}`;
}

/** Everything a view needs to undo when the next one replaces it. */
export type Cleanup = () => void;
