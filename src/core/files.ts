// Files: the record every layer speaks, the kinds, the limits and which types a visitor may
// send. The bytes' type is read from the bytes (domain/files.ts); this decides what it means.

export const FILE_KINDS = ["photo", "document", "audio", "video", "voice", "animation"] as const;
export type FileKind = (typeof FILE_KINDS)[number];

/** A file as a message shows it, without its link: what messages.attachments stores. */
export interface StoredFile {
  file_id: string;
  file_unique_id: string;
  kind: FileKind;
  name: string;
  mime_type: string;
  size: number;
  width?: number;
  height?: number;
  duration?: number;
}

/** docs/design.md §13.1's File record: the stored file and a signed, expiring link to its bytes. */
export interface FileRecord extends StoredFile {
  url: string;
}

export type Uploader = "user" | "operator" | "bot";

const MB = 1024 * 1024;
/** A visitor's or operator's file: a phone video or a scanned contract fits, a disk image does not. */
export const MAX_CHAT_FILE_BYTES = 20 * MB;
/** Telegram's figure for a bot's upload (sendDocument and friends). */
export const MAX_BOT_UPLOAD_BYTES = 50 * MB;
/** Telegram's figure for what a bot may download (getFile); larger files are refused as Telegram does. */
export const MAX_BOT_DOWNLOAD_BYTES = 20 * MB;
/** Files on one message; Telegram's album holds 10 too. */
export const MAX_FILES_PER_MESSAGE = 10;
/** Telegram's sendMediaGroup takes 2..10 items. */
export const MIN_MEDIA_GROUP = 2;
/** A multipart request's headers, boundaries and text fields beside its file; bounded so a huge "field" is refused. */
export const MULTIPART_OVERHEAD_BYTES = 64 * 1024;
/** The largest request any route accepts: sendMediaGroup with ten of a bot's largest uploads. */
export const MAX_UPLOAD_REQUEST_BYTES = MAX_FILES_PER_MESSAGE * MAX_BOT_UPLOAD_BYTES + MULTIPART_OVERHEAD_BYTES;
/** A day: an update's life in the log (as Telegram's 24 h) and a page kept open through a working day. */
export const FILE_LINK_TTL_SECONDS = 24 * 3600;
/** Uploaded but never sent: kept this long for the message that will carry it, then swept. */
export const UNREFERENCED_FILE_GRACE_MS = 24 * 3600 * 1000;
/** A stored file name longer than this is cut: it is shown in cards and Content-Disposition headers. */
export const MAX_FILE_NAME_LENGTH = 255;

/** Types a visitor may send: pictures, documents, archives, audio and video. Never HTML, SVG or scripts. */
const VISITOR_TYPES = new Set([
  "image/png", "image/jpeg", "image/gif", "image/webp", "image/bmp", "image/heic", "image/heif", "image/avif", "image/tiff",
  "application/pdf", "text/plain", "text/csv",
  "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  "application/vnd.openxmlformats-officedocument.presentationml.presentation",
  "application/vnd.oasis.opendocument.text", "application/vnd.oasis.opendocument.spreadsheet",
  "application/vnd.oasis.opendocument.presentation", "application/x-cfb", "application/rtf",
  "application/zip", "application/x-7z-compressed", "application/gzip", "application/x-tar", "application/x-rar-compressed",
  "application/vnd.rar", "application/x-bzip2", "application/x-xz",
]);

export const visitorMayUpload = (mime: string): boolean =>
  VISITOR_TYPES.has(mime) || mime.startsWith("audio/") || mime.startsWith("video/");

/** Types a browser may render in place: they cannot run script in our origin. SVG and HTML are never among them. */
export const servedInline = (mime: string): boolean =>
  (mime.startsWith("image/") && mime !== "image/svg+xml") || mime.startsWith("audio/") || mime.startsWith("video/") || mime === "application/pdf";

/** The kind a file has when nothing (such as a Telegram method) names one. */
export function kindOfType(mime: string): FileKind {
  if (mime === "image/gif") return "animation";
  if (mime.startsWith("image/") && mime !== "image/svg+xml") return "photo";
  if (mime.startsWith("video/")) return "video";
  if (mime === "audio/ogg" || mime === "audio/opus") return "voice";
  if (mime.startsWith("audio/")) return "audio";
  return "document";
}

/** A name safe to show and to put in a header: no paths, no control characters, bounded. */
export function cleanFileName(raw: string | undefined, fallback: string): string {
  const base = (raw ?? "").split(/[\\/]/).pop() ?? "";
  // eslint-disable-next-line no-control-regex
  const clean = base.replace(/[\u0000-\u001f\u007f"]/g, "").trim().slice(0, MAX_FILE_NAME_LENGTH);
  return clean || fallback;
}

export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
