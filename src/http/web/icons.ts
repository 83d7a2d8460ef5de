// The cabinet's app icons (PNG, as installable web apps need), drawn in code when first asked
// for: a rounded blue square with a white speech bubble, the favicon's picture. No image files
// in the repository and no image library for two flat shapes.
import { deflateSync } from "node:zlib";

/** The sizes Chromium's installability check and Android's launcher ask for. */
export const ICON_SIZES = [192, 512] as const;
export type IconSize = (typeof ICON_SIZES)[number];

const BLUE = [0x25, 0x63, 0xeb, 0xff];
const WHITE = [0xff, 0xff, 0xff, 0xff];
const CLEAR = [0, 0, 0, 0];

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, data.length);
  out.set(new TextEncoder().encode(type), 4);
  out.set(data, 8);
  view.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)));
  return out;
}

/** The picture in a 32-unit square, as the favicon's SVG draws it (maskable-safe: the bubble sits in the middle). */
function colourAt(x: number, y: number): number[] {
  const r = 8;
  const cx = Math.min(Math.max(x, r), 32 - r);
  const cy = Math.min(Math.max(y, r), 32 - r);
  if ((x - cx) ** 2 + (y - cy) ** 2 > r * r) return CLEAR;
  const inBody = x >= 8 && x <= 24 && y >= 10 && y <= 20;
  // The tail: from (9,20) down to (9,24) and back up to (14,20).
  const inTail = y > 20 && y <= 24 && x >= 9 && x <= 14 - ((y - 20) * 5) / 4;
  return inBody || inTail ? WHITE : BLUE;
}

export function iconPng(size: IconSize): Uint8Array {
  const raw = new Uint8Array(size * (size * 4 + 1));
  for (let y = 0; y < size; y++) {
    raw[y * (size * 4 + 1)] = 0; // filter: none
    for (let x = 0; x < size; x++) {
      const colour = colourAt(((x + 0.5) * 32) / size, ((y + 0.5) * 32) / size);
      raw.set(colour, y * (size * 4 + 1) + 1 + x * 4);
    }
  }
  const header = new Uint8Array(13);
  const view = new DataView(header.buffer);
  view.setUint32(0, size);
  view.setUint32(4, size);
  header.set([8, 6, 0, 0, 0], 8); // 8-bit RGBA, no interlace
  const parts = [
    new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", header), chunk("IDAT", deflateSync(raw, { level: 9 })), chunk("IEND", new Uint8Array(0)),
  ];
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** What Chromium needs to call the cabinet installable: a name, a start URL in scope, standalone, and 192/512 icons. */
export const MANIFEST = {
  id: "/",
  name: "botinbox",
  short_name: "botinbox",
  description: "The operator inbox of your bots",
  start_url: "/#/inbox",
  scope: "/",
  display: "standalone",
  background_color: "#ffffff",
  theme_color: "#2563eb",
  icons: ICON_SIZES.map((size) => ({ src: `/icons/icon-${size}.png`, sizes: `${size}x${size}`, type: "image/png", purpose: "any" })),
};
