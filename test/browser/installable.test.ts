// The cabinet is an installable web app: Chromium finds nothing missing (manifest, icons,
// start URL, service worker) through the DevTools protocol, and once opened it starts again
// with the server gone, from the service worker's shell.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type BrowserContext } from "playwright-core";
import type { RunningServer } from "../../src/server.ts";
import { uniqueEmail } from "../support/harness.ts";
import { apiCall, CHROMIUM, CHROMIUM_ARGS, screenshot, skipBrowser, SLOW_MS, startPlatform, UI_WAIT_MS } from "./support.ts";

setDefaultTimeout(SLOW_MS);

describe.skipIf(skipBrowser)("installable cabinet", () => {
  let server: RunningServer;
  // Chromium never offers to install from an incognito context (every newContext is one):
  // a persistent profile, in a temporary directory, is a normal window.
  const profile = mkdtempSync(join(tmpdir(), "botinbox-install-"));
  let context: BrowserContext;

  beforeAll(async () => {
    server = await startPlatform();
    context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, args: CHROMIUM_ARGS, viewport: { width: 412, height: 860 } });
  }, SLOW_MS);
  afterAll(async () => {
    await context?.close();
    await server?.stop();
    rmSync(profile, { recursive: true, force: true });
  }, SLOW_MS);

  test("the manifest and its PNG icons are served", async () => {
    const manifest = await fetch(`${server.url}/manifest.webmanifest`);
    expect(manifest.headers.get("content-type")).toContain("application/manifest+json");
    const body = await manifest.json();
    expect(body).toMatchObject({ display: "standalone", start_url: "/#/inbox", scope: "/" });
    for (const icon of body.icons) {
      const res = await fetch(`${server.url}${icon.src}`);
      expect(res.headers.get("content-type")).toBe("image/png");
      const bytes = new Uint8Array(await res.arrayBuffer());
      expect([...bytes.slice(1, 4)].map((c) => String.fromCharCode(c)).join("")).toBe("PNG");
      const view = new DataView(bytes.buffer);
      expect(`${view.getUint32(16)}x${view.getUint32(20)}`).toBe(icon.sizes);
    }
    expect((await fetch(`${server.url}/icons/icon-13.png`)).status).toBe(404);
  });

  test("Chromium reports no installability errors, and the shell opens offline", async () => {
    const email = uniqueEmail("install");
    const token = (await apiCall(server.url, "POST", "/api/auth/register", { email, password: "secret123" })).token;
    await context.addInitScript(([t, e]) => {
      localStorage.setItem("botinbox:token", t!);
      localStorage.setItem("botinbox:email", e!);
    }, [token, email]);
    const page = await context.newPage();
    await page.goto(`${server.url}/#/inbox`);
    await page.getByRole("navigation", { name: "Main" }).waitFor({ timeout: UI_WAIT_MS });
    // The worker has finished activating and controls the page (it claims open tabs), and the
    // page itself is in its cache: only a controlled page's reload reaches the worker at all
    // (`registration.active` alone is set while the worker is still activating). Polled inside
    // the page: waitForFunction takes an async predicate's promise for a truthy answer and does
    // not wait, which let the server stop while the worker was still installing (CI, round 9).
    await page.evaluate(async (timeoutMs) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const registration = await navigator.serviceWorker.getRegistration("/");
        if (registration?.active?.state === "activated" && navigator.serviceWorker.controller && (await caches.match("/"))) return;
        if (Date.now() > deadline) throw new Error("the service worker never took control of the page");
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }, UI_WAIT_MS);
    const cdp = await context.newCDPSession(page);
    const deadline = Date.now() + UI_WAIT_MS;
    let errors: unknown[] = [];
    // Chromium reads the manifest and icons asynchronously after load: ask until it settles.
    do {
      ({ installabilityErrors: errors } = await cdp.send("Page.getInstallabilityErrors"));
      if (errors.length === 0) break;
      await Bun.sleep(250);
    } while (Date.now() < deadline);
    expect(errors).toEqual([]);
    const { url, errors: manifestErrors } = await cdp.send("Page.getAppManifest");
    expect(url).toBe(`${server.url}/manifest.webmanifest`);
    expect(manifestErrors).toEqual([]);

    // Offline as the worker sees it: the server is gone. Playwright's setOffline does not reach a
    // service worker's own fetches (microsoft/playwright#2311): the worker's network-first fetch
    // would still get the page from the server and the cache fallback would go untested. Here
    // only the worker's cached shell can answer.
    await server.stop();
    await page.reload();
    await page.getByRole("navigation", { name: "Main" }).waitFor({ timeout: UI_WAIT_MS });
    // The shell is up without a network; the live state says it is not connected.
    expect(await page.locator(".live-state").innerText()).not.toBe("Live");
    expect(await page.locator(".brand").innerText()).toContain("botinbox");
    await screenshot(page, "cabinet-offline-shell");
  });
});
