// The widget's words. English ships in widget.js; another language is a small JSON file the
// server serves beside it (/widget/locales/<lang>.json), fetched only by a page that needs it,
// so the default widget stays within its size budget. Missing keys fall back to English.
import EN from "./locales/en.json";

export type Strings = typeof EN;
/** Read everywhere the widget writes a word; filled with the page's language once it loads. */
export const S: Strings = { ...EN };
/** The languages served (web/widget/locales); anything else is English. */
export const LOCALES = ["en", "ru", "de", "es", "fr", "ar"];
const RIGHT_TO_LEFT = ["ar"];

/** data-locale if it names a served language, else the browser's first one that does, else English. */
export function pickLocale(wanted?: string): string {
  const tags = wanted ? [wanted] : [...(navigator.languages ?? []), navigator.language];
  for (const tag of tags) {
    const lang = (tag || "").toLowerCase().split(/[-_]/)[0]!;
    if (LOCALES.includes(lang)) return lang;
  }
  return "en";
}

export const isRtl = (locale: string) => RIGHT_TO_LEFT.includes(locale);

/** Fetches a non-English language; a failure leaves the widget in English. */
export async function loadStrings(api: string, locale: string): Promise<void> {
  if (locale === "en") return;
  try {
    const res = await fetch(`${api}/widget/locales/${locale}.json`, { credentials: "omit" });
    if (res.ok) Object.assign(S, await res.json());
  } catch {}
}

/** `{n}` in a string, filled. */
export const fill = (text: string, n: number | string) => text.replace("{n}", String(n));

/** The fixed labels drawn before the language loaded: [selector, attribute (or "" for the text), key]. */
const LABELS: [string, string, keyof Strings][] = [
  [".launcher", "aria-label", "open"], [".close", "aria-label", "close"], [".log", "aria-label", "messages"],
  [".att", "aria-label", "attach"], ["textarea", "aria-label", "message"], ["textarea", "placeholder", "placeholder"], [".send", "aria-label", "send"],
  [".rk", "aria-label", "replyKeyboard"], [".alert", "aria-label", "botAlert"], [".alert button", "", "ok"], [".viewer button", "", "closeView"],
];

export function localize(root: ShadowRoot, wrap: HTMLElement, locale: string): void {
  for (const [selector, attribute, key] of LABELS) {
    const el = root.querySelector(selector);
    if (el && attribute) el.setAttribute(attribute, S[key]);
    else if (el) el.textContent = S[key];
  }
  wrap.lang = locale;
  wrap.dir = isRtl(locale) ? "rtl" : "ltr";
}
