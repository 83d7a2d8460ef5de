// Small pieces every view shares: toasts, copying, times, and the one rule for requests that
// a newer one replaces (the older answer is dropped, not raced).
import { signal } from "@preact/signals";
import { useEffect, useRef, useState } from "preact/hooks";

/** Long enough to read a sentence. */
const TOAST_MS = 4_000;
/** How long a copy button says "Copied". */
const COPIED_MS = 1_500;

interface Toast {
  id: number;
  message: string;
  kind: "ok" | "error";
}
const toasts = signal<Toast[]>([]);
let toastIds = 0;

/** A short notice in the corner, read out by screen readers. */
export function toast(message: string, kind: "ok" | "error" = "ok"): void {
  const item = { id: ++toastIds, message, kind };
  toasts.value = [...toasts.value, item];
  setTimeout(() => (toasts.value = toasts.value.filter((t) => t !== item)), TOAST_MS);
}

export function Toasts() {
  return (
    <div class="toasts" role="status" aria-live="polite">
      {toasts.value.map((t) => <div key={t.id} class={`toast ${t.kind}`}>{t.message}</div>)}
    </div>
  );
}

/** The Clipboard API where the page is a secure context; a hidden textarea otherwise. */
async function copyText(text: string): Promise<void> {
  try {
    await navigator.clipboard.writeText(text);
    return;
  } catch {}
  const area = document.createElement("textarea");
  area.value = text;
  area.readOnly = true;
  area.style.cssText = "position:fixed;opacity:0";
  document.body.append(area);
  area.select();
  document.execCommand("copy");
  area.remove();
}

export function CopyButton({ label, text, name }: { label: string; text: () => string; name?: string }) {
  const [copied, setCopied] = useState(false);
  useEffect(() => {
    if (!copied) return;
    const timer = setTimeout(() => setCopied(false), COPIED_MS);
    return () => clearTimeout(timer);
  }, [copied]);
  const copy = async () => {
    await copyText(text());
    setCopied(true);
    toast("Copied to the clipboard");
  };
  return <button type="button" class="ghost small" aria-label={name} onClick={copy}>{copied ? "Copied" : label}</button>;
}

const sameDay = (a: Date, b: Date) => a.toDateString() === b.toDateString();

/** "14:05" today, "3 Mar, 14:05" before. */
export function formatTime(iso: string): string {
  const date = new Date(iso);
  const time = date.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
  return sameDay(date, new Date()) ? time : `${date.toLocaleDateString([], { day: "numeric", month: "short" })}, ${time}`;
}

export const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * Runs requests of which only the newest counts: an answer that arrives after a newer run
 * started (or after `stop`, the view going away) resolves to undefined and is dropped. The
 * request itself runs to its end: an aborted fetch would show as a failed request.
 */
export class Latest {
  private generation = 0;

  async run<T>(work: () => Promise<T>): Promise<T | undefined> {
    const mine = ++this.generation;
    try {
      const result = await work();
      return mine === this.generation ? result : undefined;
    } catch (err) {
      if (mine === this.generation) throw err;
      return undefined;
    }
  }

  stop(): void {
    this.generation++;
  }
}

/** A Latest that stops when the component unmounts. */
export function useLatest(): Latest {
  const latest = useRef<Latest | undefined>(undefined);
  latest.current ??= new Latest();
  useEffect(() => () => latest.current!.stop(), []);
  return latest.current;
}

/** Sets the page title while the view shows (undefined: not known yet, left as it is). */
export function useTitle(title: string | undefined): void {
  useEffect(() => {
    if (title !== undefined) document.title = title;
  }, [title]);
}
