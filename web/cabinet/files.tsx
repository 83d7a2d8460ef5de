// Files in the cabinet: pictures in the thread (lazy, sized before they load so the thread
// does not jump, opened full size), other files as cards with a download link, the reply's
// pending attachments with upload progress (XMLHttpRequest: fetch cannot report upload
// progress), and the conversation's file list for the side panel.
import { signal } from "@preact/signals";
import { useRef, useState } from "preact/hooks";
import { MAX_CHAT_FILE_BYTES, type FileRecord } from "../../src/core/files.ts";
import { session } from "./api.ts";

export type { FileRecord };

/** The box a picture fits in inside a bubble; it keeps its proportions. */
const THUMB_PX = 240;

export const sizeText = (n: number) =>
  n < 1024 ? `${n} B` : n < 1048576 ? `${Math.round(n / 1024)} KB` : `${Number((n / 1048576).toFixed(1))} MB`;

/** Drawn in place only when it is a raster picture; SVG and anything sent as a document are cards. */
const isPicture = (f: FileRecord) => f.kind === "photo" && f.mime_type.startsWith("image/") && f.mime_type !== "image/svg+xml";

/** The signed link asking the server for a download (Content-Disposition: attachment). */
const downloadUrl = (f: FileRecord) => `${f.url}${f.url.includes("?") ? "&" : "?"}download=1`;

/** The picture shown full size, over everything; null when closed. */
const viewing = signal<FileRecord | null>(null);

function Picture({ f }: { f: FileRecord }) {
  const scale = f.width && f.height ? Math.min(1, THUMB_PX / Math.max(f.width, f.height)) : 1;
  const size = f.width && f.height ? { width: Math.max(1, Math.round(f.width * scale)), height: Math.max(1, Math.round(f.height * scale)) } : {};
  return (
    <button type="button" class="thumb" aria-label={`Open ${f.name}`} onClick={() => (viewing.value = f)}>
      <img src={f.url} alt={f.name} loading="lazy" decoding="async" {...size} />
    </button>
  );
}

export function FileCard({ f }: { f: FileRecord }) {
  return (
    <a class="file-card" href={downloadUrl(f)} download={f.name} rel="noopener">
      <span class="file-name">{f.name}</span>
      <span class="file-size">{`${sizeText(f.size)} · Download`}</span>
    </a>
  );
}

/** A message's files, between its text and its meta line. */
export function Attachments({ files }: { files: FileRecord[] | undefined }) {
  if (!files?.length) return null;
  return (
    <div class="attachments">
      {files.map((f) => (isPicture(f) ? <Picture key={f.file_id} f={f} /> : <FileCard key={f.file_id} f={f} />))}
    </div>
  );
}

/** The full-size picture: closed by its button, a click outside it, or Escape. */
export function FileViewer() {
  const f = viewing.value;
  if (!f) return null;
  const close = () => (viewing.value = null);
  return (
    <div class="file-viewer" role="dialog" aria-modal="true" aria-label={f.name} onClick={close}
      onKeyDown={(e) => e.key === "Escape" && (e.stopPropagation(), close())}>
      <img src={f.url} alt={f.name} onClick={(e) => e.stopPropagation()} />
      <div class="viewer-actions">
        <a href={downloadUrl(f)} download={f.name} onClick={(e) => e.stopPropagation()}>Download</a>
        <button type="button" ref={(b) => b?.focus()} onClick={close}>Close</button>
      </div>
    </div>
  );
}

/** The conversation's files, newest first, each once. */
export function ConversationFiles({ files }: { files: FileRecord[] }) {
  if (!files.length) return <p class="muted small">No files yet.</p>;
  return (
    <ul class="conv-files" aria-label="Files in this conversation">
      {files.map((f) => (
        <li key={f.file_id}>
          <a href={isPicture(f) ? f.url : downloadUrl(f)} target={isPicture(f) ? "_blank" : undefined} download={isPicture(f) ? undefined : f.name} rel="noopener noreferrer">{f.name}</a>
          <span class="muted small">{` ${sizeText(f.size)}`}</span>
        </li>
      ))}
    </ul>
  );
}

/** Why a file was refused, in words an operator acts on. */
function refusal(name: string, status: number, error: string | undefined): string {
  if (status === 413) return `“${name}” is too large: files can be at most ${sizeText(MAX_CHAT_FILE_BYTES)}.`;
  if (status === 415) return `“${name}” can't be sent: ${error ?? "this type of file is not accepted"}.`;
  if (status === 0) return `“${name}” was not sent: the server cannot be reached. Check your connection.`;
  return `“${name}” was not sent: ${error ?? `error ${status}`}.`;
}

/** Sends one file for the conversation; `progress` gets 0..1. Rejects with a sentence for the operator. */
function upload(conversationId: string, file: File, progress: (f: number) => void): { done: Promise<FileRecord>; cancel: () => void } {
  const xhr = new XMLHttpRequest();
  const done = new Promise<FileRecord>((resolve, reject) => {
    // The server's limit, checked here first so a refusal is instant.
    if (file.size > MAX_CHAT_FILE_BYTES) return reject(new Error(refusal(file.name, 413, undefined)));
    const form = new FormData();
    form.append("file", file, file.name);
    xhr.open("POST", `/api/inbox/${conversationId}/files`);
    if (session.token) xhr.setRequestHeader("authorization", `Bearer ${session.token}`);
    xhr.upload.onprogress = (e) => e.lengthComputable && progress(e.loaded / e.total);
    xhr.onload = () => {
      let body: { ok?: boolean; result?: FileRecord; error?: string } | null = null;
      try {
        body = JSON.parse(xhr.responseText);
      } catch {}
      if (xhr.status === 200 && body?.ok && body.result) return resolve(body.result);
      reject(new Error(refusal(file.name, xhr.status, body?.error)));
    };
    xhr.onerror = () => reject(new Error(refusal(file.name, 0, undefined)));
    xhr.onabort = () => reject(new Error("cancelled"));
    xhr.send(form);
  });
  return { done, cancel: () => xhr.abort() };
}

export interface Pending {
  key: number;
  name: string;
  size: number;
  progress: number;
  file?: FileRecord;
  error?: string;
  cancel: () => void;
}

/** The reply's attachments: uploaded as soon as they are chosen, removable, sent with the text. */
export function usePendingFiles(conversationId: string) {
  const [items, setItems] = useState<Pending[]>([]);
  const keys = useRef(0);
  const change = (key: number, fields: Partial<Pending>) => setItems((all) => all.map((p) => (p.key === key ? { ...p, ...fields } : p)));
  const add = (files: Iterable<File>) => {
    for (const file of files) {
      const key = ++keys.current;
      const job = upload(conversationId, file, (progress) => change(key, { progress }));
      setItems((all) => [...all, { key, name: file.name, size: file.size, progress: 0, cancel: job.cancel }]);
      job.done.then((f) => change(key, { file: f, progress: 1 }), (err: Error) => {
        if (err.message !== "cancelled") change(key, { error: err.message });
      });
    }
  };
  const remove = (key: number) =>
    setItems((all) => {
      all.find((p) => p.key === key)?.cancel();
      return all.filter((p) => p.key !== key);
    });
  const uploading = items.some((p) => !p.file && !p.error);
  const ready = items.filter((p) => p.file).map((p) => p.file!.file_id);
  return { items, add, remove, uploading, ready, clear: () => setItems([]) };
}

export function PendingList({ items, remove }: { items: Pending[]; remove: (key: number) => void }) {
  if (!items.length) return null;
  return (
    <ul class="pending-files" aria-label="Attachments">
      {items.map((p) => (
        <li key={p.key} class={p.error ? "failed" : p.file ? "ready" : "uploading"}>
          <span class="file-name">{p.name}</span>
          {p.error
            ? <span class="form-error" role="alert">{p.error}</span>
            : p.file
              ? <span class="muted small">{sizeText(p.size)}</span>
              : <progress max={1} value={p.progress} aria-label={`Uploading ${p.name}`} />}
          <button type="button" class="ghost small" aria-label={`Remove ${p.name}`} onClick={() => remove(p.key)}>×</button>
        </li>
      ))}
    </ul>
  );
}
