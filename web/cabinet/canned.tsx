// Canned replies: `/` in the reply box offers the bot's saved answers (type to narrow,
// arrows to choose, Enter or Tab to insert); the bot card lists, adds and deletes them.
import { useEffect, useRef, useState } from "preact/hooks";
import type { RefObject } from "preact";
import { del, get, post, type CannedReply } from "./api.ts";
import { errorText, toast } from "./ui.tsx";

/** Suggestions shown at once; the rest are reached by typing more. */
const MAX_SUGGESTIONS = 8;
const cache = new Map<string, Promise<CannedReply[]>>();

function cannedReplies(botId: string): Promise<CannedReply[]> {
  let replies = cache.get(botId);
  if (!replies) {
    replies = get<CannedReply[]>(`/api/bots/${botId}/canned-replies`);
    replies.catch(() => cache.delete(botId));
    cache.set(botId, replies);
  }
  return replies;
}

/** The `/word` right before the caret, if the operator is typing one. */
function slashToken(area: HTMLTextAreaElement): { start: number; query: string } | undefined {
  const before = area.value.slice(0, area.selectionStart);
  const match = /(?:^|\s)\/([^\s/]*)$/.exec(before);
  if (!match) return undefined;
  return { start: before.length - match[1]!.length - 1, query: match[1]!.toLowerCase() };
}

/** Closed, or open with the suggestions (none: `empty` says why). */
type Picker = { shown: CannedReply[]; active: number; empty: string } | null;

export interface CannedPicker {
  /** The popup, placed above the reply box. */
  popup: preact.JSX.Element;
  /** ARIA wiring for the reply box. */
  areaProps: Record<string, string | undefined>;
  /** Call on every input. */
  refresh(): void;
  close(): void;
  /** True when the key was the picker's (the reply box must not act on it). */
  keyDown(e: KeyboardEvent): boolean;
}

/** `setText` is told the reply box's new value after an insert. */
export function useCannedPicker(area: RefObject<HTMLTextAreaElement | null>, botId: string | undefined, setText: (text: string) => void): CannedPicker {
  const [picker, setPicker] = useState<Picker>(null);
  const close = () => setPicker(null);

  const refresh = async () => {
    const el = area.current;
    const token = el && slashToken(el);
    if (!el || !token || !botId) return close();
    let replies: CannedReply[];
    try {
      replies = await cannedReplies(botId);
    } catch {
      return close();
    }
    // Typing went on while the list loaded: the newer refresh decides.
    if (slashToken(el)?.query !== token.query) return;
    const shown = replies
      .filter((r) => r.shortcut.toLowerCase().startsWith(token.query) || r.text.toLowerCase().includes(token.query))
      .slice(0, MAX_SUGGESTIONS);
    setPicker({ shown, active: 0, empty: replies.length ? "No canned reply matches." : "No canned replies yet: add them on the bot's page." });
  };

  const insert = (r: CannedReply) => {
    const el = area.current!;
    const token = slashToken(el);
    close();
    if (!token) return;
    const end = el.selectionStart;
    el.value = el.value.slice(0, token.start) + r.text + el.value.slice(end);
    const caret = token.start + r.text.length;
    el.setSelectionRange(caret, caret);
    setText(el.value);
  };

  const keyDown = (e: KeyboardEvent): boolean => {
    if (!picker) return false;
    if (!picker.shown.length) {
      if (e.key !== "Escape") return false;
      close();
      return true;
    }
    const n = picker.shown.length;
    if (e.key === "ArrowDown" || e.key === "ArrowUp") setPicker({ ...picker, active: (picker.active + (e.key === "ArrowDown" ? 1 : n - 1)) % n });
    else if (e.key === "Enter" || e.key === "Tab") insert(picker.shown[picker.active]!);
    else if (e.key === "Escape") close();
    else return false;
    return true;
  };

  const popup = (
    <ul class="canned-popup" role="listbox" id="canned-popup" aria-label="Canned replies" hidden={!picker}>
      {picker && (picker.shown.length
        ? picker.shown.map((r, i) => (
          <li key={r.id} role="option" id={`canned-${i}`} aria-selected={i === picker.active} class={i === picker.active ? "active" : undefined}
            onMouseDown={(e) => {
              e.preventDefault();
              insert(r);
            }}>
            <strong>{`/${r.shortcut}`}</strong> <span class="muted">{r.text}</span>
          </li>
        ))
        : <li class="muted">{picker.empty}</li>)}
    </ul>
  );
  const areaProps = {
    "aria-controls": "canned-popup",
    // aria-expanded is not an attribute of a textbox (axe aria-allowed-attr); the popup's own role says it is open.
    "aria-autocomplete": "list",
    "aria-activedescendant": picker?.shown.length ? `canned-${picker.active}` : undefined,
  };
  return { popup, areaProps, refresh: () => void refresh(), close, keyDown };
}

/** The bot card's section: every member may keep the team's answers. */
export function CannedSection({ botId }: { botId: string }) {
  const [replies, setReplies] = useState<CannedReply[] | undefined>();
  const [loadError, setLoadError] = useState("");
  const [error, setError] = useState("");
  const shortcut = useRef<HTMLInputElement>(null);
  const text = useRef<HTMLTextAreaElement>(null);

  const load = () => {
    cache.delete(botId);
    cannedReplies(botId).then((list) => (setReplies(list), setLoadError("")), (err) => setLoadError(errorText(err)));
  };
  useEffect(load, [botId]);

  const remove = async (r: CannedReply) => {
    try {
      await del(`/api/bots/${botId}/canned-replies/${r.id}`);
      load();
    } catch (err) {
      toast(errorText(err), "error");
    }
  };
  const add = async (e: SubmitEvent) => {
    e.preventDefault();
    setError("");
    try {
      await post(`/api/bots/${botId}/canned-replies`, { shortcut: shortcut.current!.value.trim().replace(/^\//, ""), text: text.current!.value.trim() });
      shortcut.current!.value = "";
      text.current!.value = "";
      load();
    } catch (err) {
      setError(errorText(err));
    }
  };

  return (
    <div>
      <ul class="rows" aria-label="Canned replies">
        {loadError ? <li class="form-error">{loadError}</li>
          : replies?.length === 0 ? <li class="muted small">None yet. Type / in the reply box to use them.</li>
          : replies?.map((r) => (
            <li class="row-item" key={r.id}>
              <code>{`/${r.shortcut}`}</code>
              <span class="grow clip">{r.text}</span>
              <button type="button" class="danger small" aria-label={`Delete /${r.shortcut}`} onClick={() => remove(r)}>Delete</button>
            </li>
          ))}
      </ul>
      <form class="canned-form" onSubmit={add}>
        <div class="row">
          <div class="field"><label for="canned-shortcut">Shortcut</label>
            <input ref={shortcut} id="canned-shortcut" required maxLength={32} pattern="[^\s/]+" placeholder="hours" /></div>
          <div class="field grow"><label for="canned-text">Reply text</label>
            <textarea ref={text} id="canned-text" required rows={2} maxLength={4096} placeholder="We answer from 9:00 to 18:00, Monday to Friday." /></div>
          <button type="submit" class="ghost">Add reply</button>
        </div>
        <p class="form-error" role="alert">{error}</p>
      </form>
    </div>
  );
}
