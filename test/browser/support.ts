// Shared by the widget and cabinet browser tests: Debian's Chromium driven by
// playwright-core (never a downloaded browser), every request that is not to 127.0.0.1
// refused and recorded, the platform on a real port, and customer pages on another one.
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from "playwright-core";
import { createLogger } from "../../src/logger.ts";
import { startServer, type RunningServer } from "../../src/server.ts";
import { sharedDb, testConfig } from "../support/harness.ts";
import { freePort } from "../support/ports.ts";

export const CHROMIUM = "/usr/bin/chromium";
/** Flags that keep Chromium from phoning home, which this machine's closed network refuses. */
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  // Nothing but loopback resolves: a page can never reach the outside (localContext lists any try).
  "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
];
export const OUTPUT_DIR = join(import.meta.dir, "../../test-output");
/** A browser start, a bundler run and PGlite share two cores with other test runs. */
export const SLOW_MS = 120_000;
/** How long the UI may take to show something (live events included). */
export const UI_WAIT_MS = 30_000;

// A developer without Chromium may skip; CI must have it, so a missing browser fails there.
export const skipBrowser = !existsSync(CHROMIUM) && !process.env.CI;

export async function launch(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}

/**
 * A context whose pages may only reach 127.0.0.1: Chromium resolves every other host to
 * nothing (CHROMIUM_ARGS), so a request elsewhere fails, and is listed in `blocked`.
 *
 * Only failures are watched, never every request: once playwright-core (1.65.1) tracks a
 * request (a route, or a "request" listener), its server may announce the request as
 * finished before it has created the response object the announcement names; the client
 * then throws "Object with guid response@… was not bound in the connection" and the browser
 * is lost mid-test (seen in 2 of 5 runs of the inbox and team tests with routing, 1 of 5
 * with a request listener; the order was read off the protocol messages).
 */
export async function localContext(browser: Browser, blocked: string[], options: BrowserContextOptions = {}): Promise<BrowserContext> {
  const context = await browser.newContext(options);
  context.on("requestfailed", (request) => {
    const url = new URL(request.url());
    if (url.protocol === "data:" || url.protocol === "blob:" || url.hostname === "127.0.0.1") return;
    blocked.push(url.href);
  });
  return context;
}

/**
 * The platform on a real port. `ownPublicUrl`: PUBLIC_URL names that port, for tests that
 * follow links the server signs with it (files).
 */
export async function startPlatform(options: { ownPublicUrl?: boolean } = {}): Promise<RunningServer> {
  const port = options.ownPublicUrl ? freePort() : 0;
  const config = testConfig({ port, host: "127.0.0.1", ...(options.ownPublicUrl ? { publicUrl: `http://127.0.0.1:${port}` } : {}) });
  return startServer(config, createLogger(config), { db: await sharedDb(), migrate: false });
}

const PAGES_DIR = join(import.meta.dir, "../../web/test-pages");

export interface HostSite {
  origin: string;
  /** URL of a test page embedding the widget of `widgetKey`. */
  page(name: "host" | "hostile", widgetKey: string, attributes?: Record<string, string>): string;
  stop(): void;
}

const escapeAttribute = (value: string) => value.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");

/** A customer's website: a second server on another port, so another origin. */
export function startHostSite(apiUrl: string): HostSite {
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(request) {
      const url = new URL(request.url);
      const name = url.pathname.replace(/^\/|\.html$/g, "");
      if (name !== "host" && name !== "hostile") return new Response("not found", { status: 404 });
      const extra = [...url.searchParams].filter(([k]) => k.startsWith("data-")).map(([k, v]) => `${k}="${escapeAttribute(v)}"`).join(" ");
      const html = readFileSync(join(PAGES_DIR, `${name}.html`), "utf8")
        .replaceAll("{{WIDGET_SRC}}", `${apiUrl}/widget.js`)
        .replaceAll("{{WIDGET_KEY}}", escapeAttribute(url.searchParams.get("key") ?? ""))
        .replaceAll("{{API_URL}}", apiUrl)
        .replaceAll("{{EXTRA_ATTRIBUTES}}", extra);
      return new Response(html, { headers: { "content-type": "text/html; charset=utf-8" } });
    },
  });
  const origin = `http://127.0.0.1:${server.port}`;
  return {
    origin,
    page: (name, widgetKey, attributes = {}) => {
      const params = new URLSearchParams({ key: widgetKey, ...attributes });
      return `${origin}/${name}.html?${params}`;
    },
    stop: () => server.stop(true),
  };
}

export async function screenshot(page: Page, name: string, fullPage = false): Promise<void> {
  mkdirSync(OUTPUT_DIR, { recursive: true });
  await page.screenshot({ path: join(OUTPUT_DIR, `${name}.png`), fullPage });
}

/** JSON API calls from the test itself (not the browser). */
export async function apiCall(base: string, method: string, path: string, body?: unknown, token?: string): Promise<any> {
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const json = (await res.json()) as any;
  if (!json.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json.result;
}
