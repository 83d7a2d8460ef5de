// Most chats are never rated, and widget.js has a size budget: the rating prompt is a script
// of its own (/widget/rating.js), fetched the first time a conversation is closed.
import type { Api } from "./api.ts";
import type { ratingPrompt } from "./rating.ts";

declare global {
  interface Window {
    __botinboxRating?: typeof ratingPrompt;
  }
}

/** What the stream's status changes go to: nothing until a close, then the prompt itself. */
export function lazyRating(base: string, log: HTMLElement, api: Api, chatId: string): (status: string) => void {
  let prompt: ((status: string) => void) | undefined;
  let loading = false;
  let latest = "";
  return (status) => {
    latest = status;
    if (prompt) return prompt(status);
    if (status !== "closed" || loading) return;
    loading = true;
    const script = document.createElement("script");
    script.src = `${base}/widget/rating.js`;
    script.onload = () => {
      prompt = window.__botinboxRating?.(log, api, chatId);
      prompt?.(latest);
    };
    // A failed fetch is tried again at the next close.
    script.onerror = () => (loading = false, script.remove());
    document.head.append(script);
  };
}
