// Helpers the file tests share: small real files and multipart uploads through the app.
import { createHash } from "node:crypto";
import type { Client } from "../support/harness.ts";

/** A real 2×3 PNG (so its dimensions can be read from its header). */
export const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAIAAAADCAIAAAA2iEnWAAAAEElEQVR4nGP4z8AARAwoFABE0AX7pM/egAAAAABJRU5ErkJggg==",
  "base64",
);
/** A minimal valid PDF. */
export const PDF = Buffer.from("%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj 2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n");
export const HTML = Buffer.from("<!doctype html><html><body><script>window.parent.pwned = true; document.title = 'pwned'</script>hi</body></html>");
export const SVG = Buffer.from('<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" onload="document.title=\'pwned\'"><script>document.title="pwned"</script></svg>');

export const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

export function form(fields: Record<string, string>, file?: { bytes: Uint8Array; name: string; type?: string }, part = "file"): FormData {
  const data = new FormData();
  for (const [k, v] of Object.entries(fields)) data.append(k, v);
  if (file) data.append(part, new Blob([file.bytes as BlobPart], { type: file.type ?? "application/octet-stream" }), file.name);
  return data;
}

export async function upload(client: Client, path: string, data: FormData, token?: string, headers: Record<string, string> = {}) {
  const res = await client.app.handle(new Request(`http://test.local${path}`, {
    method: "POST", body: data, headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
  }));
  return { status: res.status, body: (await res.json()) as any };
}

/** The path and query of a File's signed url (the app is called without a network). */
export const linkPath = (url: string) => {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
};

export async function fetchLink(client: Client, url: string, headers: Record<string, string> = {}) {
  const res = await client.app.handle(new Request(`http://test.local${linkPath(url)}`, { headers }));
  return { status: res.status, headers: res.headers, bytes: new Uint8Array(await res.arrayBuffer()) };
}

/** A real RGB PNG of the given size (a gradient), for pictures big enough to look at. */
export function pngOf(width: number, height: number): Buffer {
  const { deflateSync, crc32 } = require("node:zlib") as typeof import("node:zlib");
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
    const out = Buffer.alloc(8 + data.length + 4);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc32(body) >>> 0, 8 + data.length);
    return out;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8);
  const rows = Buffer.alloc((width * 3 + 1) * height);
  for (let y = 0; y < height; y++) {
    const row = y * (width * 3 + 1);
    for (let x = 0; x < width; x++) rows.set([(x * 255) / width, (y * 255) / height, 160], row + 1 + x * 3);
  }
  return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk("IHDR", header), chunk("IDAT", deflateSync(rows)), chunk("IEND", Buffer.alloc(0))]);
}
