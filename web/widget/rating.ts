// Once the conversation is closed, the widget asks how it went: 1–5 and an optional comment,
// once per chat (the server refuses a second rating; this browser remembers it sent one).
import type { Api } from "./api.ts";

export function ratingPrompt(log: HTMLElement, api: Api, chatId: string) {
  const name = `botinbox:rated:${chatId}`;
  let done = false;
  try {
    done = !!localStorage.getItem(name);
  } catch {}
  let box: HTMLFormElement | undefined;
  const finish = (text: string) => {
    done = true;
    try {
      localStorage.setItem(name, "1");
    } catch {}
    box!.textContent = text;
  };
  return (status: string) => {
    if (status !== "closed") return box?.remove(), (box = undefined);
    if (done || box) return;
    box = document.createElement("form");
    box.className = "rate";
    box.setAttribute("aria-label", "Rate this conversation");
    box.innerHTML = `<p>How was this conversation?</p><div>${[1, 2, 3, 4, 5].map((n) => `<button type="button" aria-label="${n} of 5" aria-pressed="false">★</button>`).join("")}</div><input aria-label="Comment (optional)" placeholder="Comment (optional)" maxlength="1000"><button type="submit" disabled>Send rating</button>`;
    const stars = [...box.querySelectorAll<HTMLButtonElement>("div button")];
    const submit = box.querySelector<HTMLButtonElement>("[type=submit]")!;
    let rating = 0;
    stars.forEach((b, i) => (b.onclick = () => {
      rating = i + 1;
      stars.forEach((s, j) => s.setAttribute("aria-pressed", String(j < rating)));
      submit.disabled = false;
    }));
    box.onsubmit = (e) => {
      e.preventDefault();
      submit.disabled = true;
      api.rate(chatId, rating, box!.querySelector("input")!.value.trim()).then(
        () => finish("Thank you for your rating!"),
        (err: { status?: number; message: string }) => (err.status === 409 && /rated/.test(err.message) ? finish("Thank you for your rating!") : ((submit.disabled = false), (box!.querySelector("p")!.textContent = err.message))),
      );
    };
    log.append(box);
    log.scrollTop = log.scrollHeight;
  };
}
