// Signed, expiring links to a file's bytes (docs/design.md §13.1): HMAC over the file id and the
// expiry, so `<img src>` and a plain download link work without headers, and a link that
// was altered or has expired is refused. The key is derived from JWT_SECRET, which every
// process of a deployment shares; records are built deep in the write path, so the key is
// set once per process when the platform opens rather than handed to every builder.
import { createHmac, timingSafeEqual } from "node:crypto";
import { FILE_LINK_TTL_SECONDS, type FileRecord, type StoredFile } from "./core/files.ts";

let key: Buffer | undefined;
let base = "";

export function configureFileLinks(secret: string, publicUrl: string): void {
  key = createHmac("sha256", secret).update("botinbox file links").digest();
  base = publicUrl.replace(/\/+$/, "");
}

const signature = (fileId: string, expires: number) =>
  createHmac("sha256", key ?? Buffer.alloc(32)).update(`${fileId}.${expires}`).digest("base64url");

/** The path and query of a link valid until `now + FILE_LINK_TTL_SECONDS` (rounded to the hour, so repeats are cacheable). */
export function filePath(fileId: string, now = Date.now()): string {
  const hour = 3600;
  const expires = Math.ceil((now / 1000 + FILE_LINK_TTL_SECONDS) / hour) * hour;
  return `/api/files/${fileId}?expires=${expires}&sig=${signature(fileId, expires)}`;
}

export const fileUrl = (fileId: string, now?: number): string => `${base}${filePath(fileId, now)}`;

export const withLink = (file: StoredFile): FileRecord => ({ ...file, url: fileUrl(file.file_id) });

export type LinkCheck = "ok" | "expired" | "invalid";

export function checkFileLink(fileId: string, expires: string | undefined, sig: string | undefined, now = Date.now()): LinkCheck {
  if (!expires || !sig || !/^\d{1,12}$/.test(expires)) return "invalid";
  const expected = Buffer.from(signature(fileId, Number(expires)));
  const given = Buffer.from(sig);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return "invalid";
  return Number(expires) * 1000 < now ? "expired" : "ok";
}
