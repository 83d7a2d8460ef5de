// A native message's files in Telegram's shapes: `photo` as an array of PhotoSize (one
// size, the original bytes: the largest is the original), `document`, `audio`, `video`,
// `voice`, `animation`; the text becomes `caption` and its entities `caption_entities`.
import type { FileRecord, StoredFile } from "../core/files.ts";

const base = (f: StoredFile) => ({ file_id: f.file_id, file_unique_id: f.file_unique_id, file_size: f.size });
const named = (f: StoredFile) => ({ ...base(f), file_name: f.name, mime_type: f.mime_type });

export function tgMedia(f: StoredFile): Record<string, unknown> {
  switch (f.kind) {
    case "photo":
      return { photo: [{ ...base(f), width: f.width ?? 0, height: f.height ?? 0 }] };
    case "video":
      return { video: { ...named(f), width: f.width ?? 0, height: f.height ?? 0, duration: f.duration ?? 0 } };
    case "animation":
      return { animation: { ...named(f), width: f.width ?? 0, height: f.height ?? 0, duration: f.duration ?? 0 } };
    case "audio":
      return { audio: { ...named(f), duration: f.duration ?? 0 } };
    case "voice":
      return { voice: { ...base(f), mime_type: f.mime_type, duration: f.duration ?? 0 } };
    default:
      return { document: named(f) };
  }
}

/** Telegram's message fields for a message with files (the first: a Telegram message carries one; an album is several messages). */
export function tgMediaFields(text: string, entities: unknown[] | undefined, files: FileRecord[]): Record<string, unknown> {
  const out: Record<string, unknown> = { ...tgMedia(files[0]!) };
  if (text) out.caption = text;
  if (text && entities) out.caption_entities = entities;
  return out;
}

/** Where getFile says the bytes are: /file/bot<token>/<file_path>. */
export const filePathOf = (f: Pick<StoredFile, "file_id" | "kind" | "name">) => {
  const ext = /\.([A-Za-z0-9]{1,8})$/.exec(f.name)?.[1] ?? "bin";
  return `${f.kind === "photo" ? "photos" : "documents"}/${f.file_id}.${ext}`;
};

export const fileIdOfPath = (path: string): string | undefined =>
  /^[a-z]+\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.[A-Za-z0-9]{1,8}$/i.exec(path)?.[1]?.toLowerCase();
