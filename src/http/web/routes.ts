// The browser side of botinbox: the cabinet at `/`, its service worker at `/sw.js`
// and the embeddable `/widget.js`.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Config } from "../../config.ts";
import type { Services } from "../../services.ts";
import { unavailable } from "../../core/errors.ts";
import { feature } from "../feature.ts";
import { CABINET_CSP, pageHeaders } from "./security-headers.ts";
import { bundleScript, CHARTS_CSS, lazyAsset, makeAsset, SCRIPT_ENTRIES, serveAsset, WEB_DIR } from "./assets.ts";
import { LOCALES as WIDGET_LOCALES } from "../../../web/widget/i18n.ts";

/** Sites cache the widget briefly so a fix reaches them within minutes; ETags make rechecks cheap. */
const WIDGET_CACHE = "public, max-age=300";
/** The cabinet revalidates every load: an operator never runs yesterday's code after a deploy. */
const CABINET_CACHE = "no-cache";
const JAVASCRIPT = "text/javascript; charset=utf-8";
const HIDDEN = { detail: { hide: true } };

/**
 * The base URL the embed snippet should name: PUBLIC_URL when it was set, or null so the
 * cabinet uses its own origin. The default (http://localhost:PORT) is only a guess, and the
 * address the operator actually opened the cabinet at is a better one.
 */
function snippetBaseUrl(config: Config): string | null {
  return config.publicUrl === `http://localhost:${config.port || 3000}` ? null : config.publicUrl;
}

const escapeAttribute = (value: string) =>
  value.replace(/[&"<>]/g, (c) => ({ "&": "&amp;", '"': "&quot;", "<": "&lt;", ">": "&gt;" })[c]!);

export const webRoutes = (services: Services) => {
  const fail = (what: string) => (err: unknown) => {
    services.log.error({ err }, `${what} could not be built`);
    throw unavailable(`${what} is unavailable`);
  };
  const widget = lazyAsset(async () => makeAsset(await bundleScript(SCRIPT_ENTRIES.widget), JAVASCRIPT));
  const cabinetJs = lazyAsset(async () => makeAsset(await bundleScript(SCRIPT_ENTRIES.cabinet), JAVASCRIPT));
  const charts = lazyAsset(async () => makeAsset(await bundleScript(SCRIPT_ENTRIES.charts), JAVASCRIPT));
  const chartsCss = lazyAsset(async () => makeAsset(await readFile(CHARTS_CSS, "utf8"), "text/css; charset=utf-8"));
  const serviceWorker = lazyAsset(async () => makeAsset(await bundleScript(SCRIPT_ENTRIES.serviceWorker), JAVASCRIPT));
  // The widget's languages other than English: fetched by pages that need one (web/widget/i18n.ts).
  const locales = new Map(WIDGET_LOCALES.map((lang) => [lang, lazyAsset(async () =>
    makeAsset(JSON.stringify(JSON.parse(await readFile(join(WEB_DIR, `widget/locales/${lang}.json`), "utf8"))), "application/json; charset=utf-8"))]));
  const cabinetCss = lazyAsset(async () => makeAsset(await readFile(join(WEB_DIR, "cabinet/style.css"), "utf8"), "text/css; charset=utf-8"));
  const page = lazyAsset(async () => {
    const html = await readFile(join(WEB_DIR, "cabinet/index.html"), "utf8");
    return makeAsset(html.replace("%PUBLIC_URL%", escapeAttribute(snippetBaseUrl(services.config) ?? "")), "text/html; charset=utf-8");
  });

  return feature()
    .get("/widget.js", async ({ request }) => {
      const response = serveAsset(request, await widget().catch(fail("widget.js")), WIDGET_CACHE);
      // Pages that isolate themselves (COEP) may still load the widget from our origin.
      response.headers.set("cross-origin-resource-policy", "cross-origin");
      return response;
    }, HIDDEN)
    .get("/widget/locales/:file", async ({ request, params, set }) => {
      const locale = locales.get(params.file.replace(/\.json$/, ""));
      if (!locale || !params.file.endsWith(".json")) {
        set.status = 404;
        return { ok: false, error: "no such widget language", error_code: 404 };
      }
      const response = serveAsset(request, await locale().catch(fail("the widget's language")), WIDGET_CACHE);
      response.headers.set("cross-origin-resource-policy", "cross-origin");
      response.headers.set("access-control-allow-origin", "*");
      return response;
    }, HIDDEN)
    .get("/", async ({ request }) => {
      const response = serveAsset(request, await page().catch(fail("the cabinet")), CABINET_CACHE);
      for (const [name, value] of Object.entries(pageHeaders(CABINET_CSP))) response.headers.set(name, value);
      return response;
    }, HIDDEN)
    // At the root, so the worker's default scope is the whole cabinet (no Service-Worker-Allowed).
    .get("/sw.js", async ({ request }) => serveAsset(request, await serviceWorker().catch(fail("sw.js")), CABINET_CACHE), HIDDEN)
    .get("/assets/cabinet.js", async ({ request }) => serveAsset(request, await cabinetJs().catch(fail("the cabinet")), CABINET_CACHE), HIDDEN)
    .get("/assets/charts.js", async ({ request }) => serveAsset(request, await charts().catch(fail("the charts")), CABINET_CACHE), HIDDEN)
    .get("/assets/charts.css", async ({ request }) => serveAsset(request, await chartsCss().catch(fail("the charts")), CABINET_CACHE), HIDDEN)
    .get("/assets/cabinet.css", async ({ request }) => serveAsset(request, await cabinetCss().catch(fail("the cabinet")), CABINET_CACHE), HIDDEN);
};
