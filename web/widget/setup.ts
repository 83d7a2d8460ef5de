// What the widget makes of its configuration: the site owner's console message for an
// embed that cannot work, and a text colour that reads on the brand colour.
import { ApiError } from "./api.ts";

/** The sentence for the site owner when the embed itself is wrong, else undefined. */
export function misconfiguration(err: unknown, key: string): string | undefined {
  if (!(err instanceof ApiError)) return undefined;
  if (err.status === 404) return `no bot has the widget key "${key}". Copy the embed snippet again from the bot's Widget channel in the cabinet.`;
  if (err.status === 403 && /origin/.test(err.message))
    return `this site's origin ${location.origin} is not among the widget's allowed origins. Add it to the Widget channel's allowed origins in the cabinet.`;
}

/** White or near-black text, whichever reads better (WCAG contrast) on the brand colour. */
export function textOn(hex: string): string {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  const l = 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
  // Contrast with white is 1.05/(l+.05), with #111827 (luminance ≈ .0116) (l+.05)/.0616.
  return 1.05 / (l + 0.05) >= (l + 0.05) / 0.0616 ? "#fff" : "#111827";
}
