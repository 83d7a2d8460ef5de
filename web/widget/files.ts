// Files in the widget: uploads with progress and cancel (XMLHttpRequest, the one browser API
// that reports upload progress), pictures as thumbnails that open full size, other files as
// cards with a download link. Links are the server's signed urls; names go through textContent.
import { fill, S } from "./i18n.ts";

export interface WidgetFile {
  file_id: string;
  kind: string;
  name: string;
  mime_type: string;
  size: number;
  width?: number;
  height?: number;
  url: string;
}

/** The server's limit for a visitor's file; checked here first so a refusal is instant. */
const MAX_BYTES = 20 * 1024 * 1024;
/** A thumbnail's box; the picture keeps its proportions inside it. */
const THUMB_PX = 200;

export interface Upload {
  done: Promise<WidgetFile>;
  cancel(): void;
}

export const sizeText = (n: number) =>
  n < 1024 ? `${n} B` : n < 1048576 ? `${Math.round(n / 1024)} KB` : `${(n / 1048576).toFixed(1)} MB`;

/** Sends one file for the chat; `progress` gets 0..1 as it goes. Rejects with a sentence for the visitor. */
export function upload(base: string, key: string, chatId: string, file: File, progress: (f: number) => void, claim: Record<string, string> = {}): Upload {
  const xhr = new XMLHttpRequest();
  const done = new Promise<WidgetFile>((resolve, reject) => {
    if (file.size > MAX_BYTES) return reject(new Error(`“${file.name}” is ${sizeText(file.size)}; files can be at most 20 MB.`));
    const form = new FormData();
    form.append("widget_key", key);
    form.append("chat_id", chatId);
    for (const [name, value] of Object.entries(claim)) form.append(name, value);
    form.append("file", file, file.name);
    xhr.open("POST", `${base}/api/files`);
    xhr.upload.onprogress = (e) => e.lengthComputable && progress(e.loaded / e.total);
    xhr.onload = () => {
      let body: any;
      try {
        body = JSON.parse(xhr.responseText);
      } catch {}
      if (xhr.status === 200 && body?.ok) return resolve(body.result);
      const why = body?.error ? String(body.error) : `error ${xhr.status}`;
      reject(new Error(xhr.status === 415 ? `“${file.name}” can't be sent: only pictures, PDF, text and office documents, archives, audio and video can.` : `“${file.name}” was not sent: ${why}.`));
    };
    xhr.onerror = () => reject(new Error(`“${file.name}” was not sent: you appear to be offline.`));
    xhr.onabort = () => reject(new Error("cancelled"));
    xhr.send(form);
  });
  return { done, cancel: () => xhr.abort() };
}

/** An element with its class (and text). */
export const el = <K extends keyof HTMLElementTagNameMap>(tag: K, className: string, text?: string) => {
  const node = document.createElement(tag);
  node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
};

/** A picture the browser may show (never SVG: the server sends it as a download anyway). */
const isPicture = (f: WidgetFile) => f.mime_type.startsWith("image/") && f.mime_type !== "image/svg+xml";

/** Draws `files` at the end of a message bubble; `view` opens a picture full size. */
export function drawFiles(bubble: HTMLElement, files: WidgetFile[], view: (f: WidgetFile) => void): void {
  bubble.querySelector(".files")?.remove();
  if (!files.length) return;
  const box = el("div", "files");
  for (const f of files) {
    if (isPicture(f)) {
      const button = el("button", "thumb");
      button.type = "button";
      button.setAttribute("aria-label", fill(S.openFile, f.name));
      const img = el("img", "");
      img.alt = f.name;
      img.loading = "lazy";
      // Sized before it loads, so the conversation does not jump.
      if (f.width && f.height) {
        const scale = Math.min(1, THUMB_PX / Math.max(f.width, f.height));
        img.width = Math.max(1, Math.round(f.width * scale));
        img.height = Math.max(1, Math.round(f.height * scale));
      }
      img.src = f.url;
      button.append(img);
      button.onclick = () => view(f);
      box.append(button);
    } else {
      const card = el("a", "card");
      // The link is on the API's origin, where `download` is ignored: the server is asked instead.
      card.href = `${f.url}&download=1`;
      card.append(el("span", "fn", f.name), el("span", "fs", `${sizeText(f.size)} · ${S.download}`));
      box.append(card);
    }
  }
  bubble.insertBefore(box, bubble.querySelector(".meta"));
}

/** The full-size view: a picture over the panel, closed by its button, a click or Escape. */
export function viewer(panel: HTMLElement): (f: WidgetFile) => void {
  const box = el("div", "viewer");
  box.hidden = true;
  box.setAttribute("role", "dialog");
  box.setAttribute("aria-modal", "true");
  const close = el("button", "", S.closeView);
  close.type = "button";
  box.append(close);
  box.onclick = () => (box.hidden = true);
  box.onkeydown = (e) => {
    if (e.key === "Escape") {
      e.stopPropagation();
      box.hidden = true;
    }
  };
  panel.append(box);
  return (f) => {
    // Made when opened: a chat without pictures has no image element at all.
    box.querySelector("img")?.remove();
    const img = el("img", "");
    img.src = f.url;
    img.alt = f.name;
    box.prepend(img);
    box.setAttribute("aria-label", f.name);
    box.hidden = false;
    close.focus();
  };
}

/** A bubble's upload in progress: a bar and a Cancel button. */
export function progressBar(bubble: HTMLElement, cancel: () => void): (f: number) => void {
  const wrap = el("div", "up");
  const bar = el("progress", "");
  bar.max = 1;
  bar.value = 0;
  const stop = el("button", "", S.cancel);
  stop.type = "button";
  stop.onclick = cancel;
  wrap.append(bar, stop);
  bubble.insertBefore(wrap, bubble.querySelector(".meta"));
  return (f) => (bar.value = f);
}

/** Files reach `attach` from the clip button's picker, a paste into the message box, or a drop on the panel. */
export function acceptFiles(panel: HTMLElement, input: HTMLTextAreaElement, picker: HTMLInputElement, button: HTMLButtonElement, attach: (files: File[]) => void): void {
  button.onclick = () => picker.click();
  picker.onchange = () => {
    attach([...(picker.files ?? [])]);
    picker.value = "";
  };
  input.addEventListener("paste", (e) => {
    const files = [...(e.clipboardData?.files ?? [])];
    if (files.length) {
      e.preventDefault();
      attach(files);
    }
  });
  const dragging = (on: boolean) => (e: DragEvent) => {
    if (!e.dataTransfer?.types.includes("Files")) return;
    e.preventDefault();
    panel.classList.toggle("drop", on);
  };
  panel.addEventListener("dragover", dragging(true));
  panel.addEventListener("dragleave", dragging(false));
  panel.addEventListener("drop", (e) => {
    dragging(false)(e);
    if (e.dataTransfer?.files.length) attach([...e.dataTransfer.files]);
  });
}
