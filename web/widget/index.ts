// Entry of /widget.js. Reads its settings from its own <script> tag:
//   <script src=".../widget.js" data-widget-key="..." data-api-url="..." data-title="..." data-subtitle="..."
//     data-locale="de" data-user-id="..." data-user-hash="..." data-user-name="..." data-user-email="..." async></script>
// data-api-url defaults to the origin the script was loaded from; data-locale to the browser's
// language. The page drives the widget through window.BotInbox (open, close, toggle, setUser, on).
import { mount, type Controller } from "./ui.ts";
import { pickLocale } from "./i18n.ts";

declare global {
  interface Window {
    /** Widget keys already mounted on this page: a snippet pasted twice shows one widget. */
    __botinboxWidgets?: Record<string, true>;
    BotInbox?: Controller;
  }
}

(() => {
  // currentScript is only set while this script first runs, so it is read right away.
  const script = (document.currentScript ?? document.querySelector("script[data-widget-key]")) as HTMLScriptElement | null;
  const data = script?.dataset;
  const key = data?.widgetKey;
  if (!script || !key) return console.warn("botinbox widget: the script tag needs data-widget-key");
  const mounted = (window.__botinboxWidgets ??= {});
  if (mounted[key]) return;
  mounted[key] = true;
  const api = (data.apiUrl || new URL(script.src, location.href).origin).replace(/\/+$/, "");
  const user = data.userId && data.userHash ? { id: data.userId, hash: data.userHash, name: data.userName, email: data.userEmail } : undefined;
  // Calls made before the page has a body wait for the widget, in order.
  const waiting: [keyof Controller, unknown[]][] = [];
  let widget: Controller | undefined;
  const later = (name: keyof Controller) => (...args: unknown[]) => (widget ? (widget[name] as (...a: unknown[]) => void)(...args) : void waiting.push([name, args]));
  window.BotInbox = { open: later("open"), close: later("close"), toggle: later("toggle"), setUser: later("setUser"), on: later("on") } as Controller;
  const start = () => {
    widget = mount({ key, api, title: data.title, subtitle: data.subtitle, user, locale: pickLocale(data.locale) });
    for (const [name, args] of waiting) (widget[name] as (...a: unknown[]) => void)(...args);
  };
  if (document.body) start();
  else document.addEventListener("DOMContentLoaded", start, { once: true });
})();
