// Text contrast as a reader sees it, measured in the browser: shared by the widget's and the
// cabinet's browser tests.

/** WCAG AA for body text. */
export const MIN_CONTRAST = 4.5;

/**
 * Every visible text in the page (or in the shadow root of `host`) with its contrast against
 * what is behind it: colours composited with their alpha and the opacity of the element and
 * its ancestors. Visible placeholders are measured too. Text of a disabled control is not:
 * WCAG 1.4.3 exempts inactive components (a button disabled while its page loads read 2.72:1
 * once in CI). Runs in the page (page.evaluate).
 */
export function measureContrast(host: string | null): Array<{ text: string; ratio: number }> {
  type RGBA = [number, number, number, number];
  const parse = (c: string): RGBA => {
    const n = c.match(/[\d.]+/g)!.map(Number);
    return [n[0]!, n[1]!, n[2]!, n.length > 3 ? n[3]! : 1];
  };
  const over = (top: RGBA, alpha: number, bottom: RGBA): RGBA => {
    const a = top[3] * alpha;
    return [0, 1, 2].map((i) => top[i]! * a + bottom[i]! * (1 - a)).concat(1) as RGBA;
  };
  const lum = (c: RGBA) => {
    const [r, g, b] = c.slice(0, 3).map((v) => {
      const s = v / 255;
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
  };
  const ratio = (a: RGBA, b: RGBA) => {
    const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p);
    return (x! + 0.05) / (y! + 0.05);
  };
  const parentOf = (el: Element): Element | null => el.parentElement ?? ((el.getRootNode() as ShadowRoot).host || null);
  const chain = (el: Element) => {
    const list: Element[] = [];
    for (let e: Element | null = el; e; e = parentOf(e)) list.unshift(e);
    return list;
  };
  const root: Document | ShadowRoot = host ? document.querySelector(host)!.shadowRoot! : document;
  const results: Array<{ text: string; ratio: number }> = [];
  const measure = (el: Element, text: string, color: string) => {
    let bg: RGBA = [255, 255, 255, 1];
    let opacity = 1;
    for (const e of chain(el)) {
      const style = getComputedStyle(e);
      opacity *= Number(style.opacity);
      bg = over(parse(style.backgroundColor), opacity, bg);
    }
    results.push({ text, ratio: Math.round(ratio(over(parse(color), opacity, bg), bg) * 100) / 100 });
  };
  for (const el of root.querySelectorAll("*")) {
    const text = [...el.childNodes].filter((n) => n.nodeType === Node.TEXT_NODE).map((n) => n.textContent!.trim()).join("");
    const box = el.getBoundingClientRect();
    if (!text || box.width <= 1 || box.height <= 1 || !el.checkVisibility({ visibilityProperty: true })) continue;
    if (el.closest("style, script, head, option, :disabled")) continue;
    measure(el, text.slice(0, 40), getComputedStyle(el).color);
  }
  for (const input of root.querySelectorAll<HTMLInputElement | HTMLTextAreaElement>("textarea[placeholder], input[placeholder]")) {
    if (input.checkVisibility()) measure(input, `placeholder: ${input.placeholder}`, getComputedStyle(input, "::placeholder").color);
  }
  return results;
}
