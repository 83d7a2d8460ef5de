// Entry of /widget.js. Reads its settings from its own <script> tag:
//   <script src=".../widget.js" data-widget-key="..." data-api-url="..." data-title="..." data-subtitle="..." async></script>
// data-api-url defaults to the origin the script was loaded from.
import { mount } from "./ui.ts";

declare global {
  interface Window {
    /** Widget keys already mounted on this page: a snippet pasted twice shows one widget. */
    __botinboxWidgets?: Record<string, true>;
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
  const start = () => mount({ key, api, title: data.title, subtitle: data.subtitle });
  if (document.body) start();
  else document.addEventListener("DOMContentLoaded", start, { once: true });
})();
