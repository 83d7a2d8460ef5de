// Files: an upload is streamed into the file store with a hard size cap (never held whole),
// its type read from its first bytes, its dimensions from the image header; only then is
// its row written. Which files a message may carry, and their lifecycle, are decided here.
import { createHash, randomUUID } from "node:crypto";
import { AppError, badRequest } from "../core/errors.ts";
import {
  cleanFileName, kindOfType, MAX_FILES_PER_MESSAGE, UNREFERENCED_FILE_GRACE_MS, UUID_PATTERN,
  type FileKind, type StoredFile, type Uploader,
} from "../core/files.ts";
import type { Db } from "../db/driver.ts";
import { deleteFiles, existingFileIds, findBotFiles, findUnreferencedFiles, insertFile, type DbFile } from "../db/files.ts";
import type { FileStore } from "../files/store.ts";
import { isTemporary } from "../files/disk.ts";

export interface FileDeps {
  db: Db;
  files: FileStore;
}

/** file-type reads at most this much; image headers (JPEG's after its EXIF block) fit in the rest. */
const SNIFF_BYTES = 4100;
const HEADER_BYTES = 256 * 1024;
/**
 * Every this many bytes received, a hint to collect young garbage: each chunk of an upload is
 * garbage once stored, but Bun collects lazily in a large heap, so a 50 MB upload grew the
 * process by 42 MB of dead chunks without it (11 MB with it, at 4 MB; a bare Bun server
 * reading the same body grows 14 MB).
 */
const COLLECT_EVERY_BYTES = 4 * 1024 * 1024;

export interface UploadOptions {
  botId: string;
  chatId: string | null;
  uploadedBy: Uploader;
  /** The client's name for it (shown and offered on download, never trusted for the type). */
  name: string | undefined;
  maxBytes: number;
  /** Refuses a type (read from the bytes) with 415 before the rest is read. */
  allowType?: (mime: string) => boolean;
}

const MB = 1024 * 1024;
export const tooLarge = (maxBytes: number) => new AppError("payload_too_large", `the file is larger than ${Math.round(maxBytes / MB)} MB, the most accepted here`);
export const wrongFileId = () => badRequest("wrong file identifier: no such file of this bot (and chat)", "wrong_file_id");

/** HTML and SVG are what a lie about a type hides; they are recognised before "plain text". */
const MARKUP = /^\s*(?:<\?xml[^>]*>\s*)?(?:<!--[\s\S]*?-->\s*)*<(!doctype\s+html|html|head|body|script|iframe|svg|div|p|a|img|meta|style|title|object|embed)\b/i;

/** The type the bytes say; the client's Content-Type and file name are never asked. */
export async function sniffType(head: Uint8Array, name: string): Promise<string> {
  // Loaded on first upload: file-type stays out of an idle process's memory (docs/decisions.md).
  const { fileTypeFromBuffer } = await import("file-type");
  const found = await fileTypeFromBuffer(head).catch(() => undefined);
  const text = decodeText(head);
  if (found && found.mime !== "application/xml") return found.mime;
  if (text !== undefined) {
    const markup = MARKUP.exec(text);
    if (markup) return markup[1]!.toLowerCase() === "svg" || /<svg\b/i.test(text) ? "image/svg+xml" : "text/html";
    if (found) return found.mime;
    return /\.csv$/i.test(name) ? "text/csv" : "text/plain";
  }
  return found?.mime ?? "application/octet-stream";
}

function decodeText(head: Uint8Array): string | undefined {
  if (head.includes(0)) return undefined;
  try {
    // stream: a multi-byte character cut at the end of the head is not an error.
    return new TextDecoder("utf-8", { fatal: true }).decode(head, { stream: true });
  } catch {
    return undefined;
  }
}

async function dimensions(head: Uint8Array, mime: string): Promise<{ width: number | null; height: number | null }> {
  if (!mime.startsWith("image/") || mime === "image/svg+xml") return { width: null, height: null };
  try {
    // Loaded on the first image, like file-type: an idle process never needs it.
    const { imageSize } = await import("image-size");
    const size = imageSize(head);
    return { width: size.width ?? null, height: size.height ?? null };
  } catch {
    return { width: null, height: null };
  }
}

/**
 * Streams `source` into the store under a new id, counting, hashing and keeping only its
 * first bytes; refuses it (413/415) as soon as it is too large or of a refused type.
 */
export async function storeUpload(deps: FileDeps, source: AsyncIterable<Uint8Array>, options: UploadOptions): Promise<DbFile> {
  const id = randomUUID();
  const name = cleanFileName(options.name, "file");
  const hash = createHash("sha256");
  const head: Uint8Array[] = [];
  let headSize = 0;
  let size = 0;
  let mime: string | undefined;
  const iterator = source[Symbol.asyncIterator]();
  const sniff = async () => {
    mime = await sniffType(Buffer.concat(head), name);
    if (options.allowType && !options.allowType(mime)) {
      throw new AppError("unsupported_media_type", `files of type ${mime} cannot be sent here: send a picture, a PDF, a text or office document, an archive, audio or video`);
    }
  };
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await iterator.next();
      if (next.done) {
        if (mime === undefined) await sniff();
        controller.close();
        return;
      }
      const chunk = next.value instanceof Uint8Array ? next.value : new Uint8Array(next.value);
      if (Math.floor(size / COLLECT_EVERY_BYTES) !== Math.floor((size + chunk.byteLength) / COLLECT_EVERY_BYTES)) Bun.gc(false);
      size += chunk.byteLength;
      if (size > options.maxBytes) throw tooLarge(options.maxBytes);
      hash.update(chunk);
      if (headSize < HEADER_BYTES) {
        head.push(chunk.subarray(0, HEADER_BYTES - headSize));
        headSize += Math.min(chunk.byteLength, HEADER_BYTES - headSize);
      }
      if (mime === undefined && headSize >= SNIFF_BYTES) await sniff();
      controller.enqueue(chunk);
    },
    async cancel() {
      await iterator.return?.();
    },
  });
  try {
    await deps.files.put(id, body);
  } catch (err) {
    await iterator.return?.().catch(() => {});
    throw err;
  }
  const type = mime!;
  try {
    return await insertFile(deps.db, {
      id, bot_id: options.botId, chat_id: options.chatId, uploaded_by: options.uploadedBy, name, mime_type: type, size,
      sha256: hash.digest("hex"), kind: kindOfType(type), ...(await dimensions(Buffer.concat(head), type)), duration: null,
    });
  } catch (err) {
    await deps.files.delete(id).catch(() => {});
    throw err;
  }
}

/** Telegram's file_unique_id: the same for the same bytes, whichever bot or upload. */
export const uniqueIdOf = (sha256: string) => Buffer.from(sha256.slice(0, 24), "hex").toString("base64url");

/** The file as a message shows it; `kind` is what the sender called it (sendDocument with a picture is a document). */
export function storedFile(file: DbFile, kind: FileKind = file.kind): StoredFile {
  const out: StoredFile = {
    file_id: file.id, file_unique_id: uniqueIdOf(file.sha256), kind, name: file.name, mime_type: file.mime_type, size: Number(file.size),
  };
  if (file.width !== null) out.width = file.width;
  if (file.height !== null) out.height = file.height;
  if (file.duration !== null) out.duration = file.duration;
  return out;
}

/** A file_id as clients pass it: ours are uuids; anything else names no file. */
export const validFileId = (value: unknown): value is string => typeof value === "string" && UUID_PATTERN.test(value);

/**
 * The files a message may carry: the bot's own, and for a chat (visitor, operator) only those
 * uploaded for that chat. Any other id, another bot's included, is "wrong file identifier".
 */
export async function resolveAttachments(db: Db, botId: string, ids: unknown, chatId: string | null): Promise<StoredFile[]> {
  if (ids === undefined || ids === null) return [];
  if (!Array.isArray(ids)) throw badRequest("attachments: expected an array of file_id");
  if (ids.length > MAX_FILES_PER_MESSAGE) throw badRequest(`attachments: at most ${MAX_FILES_PER_MESSAGE} files per message`);
  if (!ids.every(validFileId)) throw wrongFileId();
  const rows = new Map((await findBotFiles(db, botId, ids)).map((f) => [f.id, f]));
  return ids.map((id) => {
    const file = rows.get(id.toLowerCase());
    if (!file || (chatId !== null && file.chat_id !== chatId)) throw wrongFileId();
    return storedFile(file);
  });
}

/** A message says something: text, files, or both. */
export function requireTextOrFiles(text: string, files: StoredFile[]): void {
  if (text === "" && files.length === 0) throw badRequest("text: must not be empty unless attachments are given");
}

/** A deleted message's files go with it, unless another live message still shows them. */
export async function unlinkFiles(deps: FileDeps, files: StoredFile[]): Promise<void> {
  if (files.length === 0) return;
  const gone = await findUnreferencedFiles(deps.db, null, files.map((f) => f.file_id));
  await removeFiles(deps, gone);
}

async function removeFiles(deps: FileDeps, ids: string[]): Promise<void> {
  await deleteFiles(deps.db, ids);
  await removeStoredFiles(deps.files, ids);
}

/** Removes the bytes of files whose rows are gone (or going). */
export async function removeStoredFiles(files: FileStore, ids: string[]): Promise<void> {
  for (const id of ids) await files.delete(id);
}

/**
 * Removes files no live message shows once their grace has passed, and stored bytes whose
 * row is gone (a deleted bot's, an upload that failed half-way). Idempotent: every web
 * process may run it.
 */
export async function sweepFiles(deps: FileDeps, now = Date.now()): Promise<number> {
  const before = new Date(now - UNREFERENCED_FILE_GRACE_MS);
  const unreferenced = await findUnreferencedFiles(deps.db, before);
  await removeFiles(deps, unreferenced);
  const old = (await deps.files.list()).filter((o) => o.modified < before || (isTemporary(o.key) && o.modified.getTime() < now - 3600_000));
  const keys = old.map((o) => o.key).filter(validFileId);
  const kept = await existingFileIds(deps.db, keys);
  let removed = unreferenced.length;
  for (const o of old) {
    if (validFileId(o.key) && kept.has(o.key)) continue;
    await deps.files.delete(o.key);
    removed++;
  }
  return removed;
}
