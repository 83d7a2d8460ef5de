// /swagger must render with no internet (DESIGN §8): a real Chromium loads it from a real
// server while every request that leaves this machine is refused and recorded.
//
// Browser: Debian's /usr/bin/chromium driven by playwright-core's own launch (pipe
// transport). It works under Bun as it does under Node, so no CDP-over-websocket
// workaround is needed; playwright never downloads a browser here.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser, type BrowserContext } from "playwright-core";
import { createLogger } from "../../src/logger.ts";
import { startServer, type RunningServer } from "../../src/server.ts";
import { sharedDb, testConfig } from "../support/harness.ts";

const CHROMIUM = "/usr/bin/chromium";
/** Flags that keep Chromium from phoning home, which this machine's closed network refuses. */
const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
const LOCAL_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]"]);
const OUTPUT_DIR = join(import.meta.dir, "../../test-output");
/** Bun ignores bunfig's [test] timeout (5 s stays the default); a browser start needs more. */
const SLOW_MS = 60_000;
setDefaultTimeout(SLOW_MS);

// A developer without Chromium may skip; CI must have it, so a missing browser fails there.
const skip = !existsSync(CHROMIUM) && !process.env.CI;

describe.skipIf(skip)("swagger UI in a real browser", () => {
  let server: RunningServer;
  let browser: Browser;
  let context: BrowserContext;
  const blocked: string[] = [];

  beforeAll(async () => {
    const config = testConfig({ port: 0, host: "127.0.0.1" });
    server = await startServer(config, createLogger(config), { db: await sharedDb(), migrate: false });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    context = await browser.newContext({ viewport: { width: 1280, height: 2000 } });
    await context.route("**/*", (route) => {
      const url = new URL(route.request().url());
      if (url.protocol === "data:" || url.protocol === "blob:" || LOCAL_HOSTS.has(url.hostname)) return route.continue();
      blocked.push(url.href);
      return route.abort("blockedbyclient");
    });
  }, SLOW_MS);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  }, SLOW_MS);

  test("renders the operations list from our own assets", async () => {
    const page = await context.newPage();
    const failed: string[] = [];
    page.on("requestfailed", (req) => failed.push(`${req.url()} ${req.failure()?.errorText ?? ""}`));

    const res = await page.goto(`${server.url}/swagger`, { waitUntil: "load" });
    expect(res?.status()).toBe(200);

    const operations = page.locator(".opblock");
    await operations.first().waitFor({ state: "visible", timeout: 30_000 });
    expect(await operations.count()).toBeGreaterThan(0);
    await expect(page.getByText("/api/auth/register", { exact: true }).first().isVisible()).resolves.toBe(true);
    // Tag sections come from the document's tags, so the spec's grouping reached the UI.
    await expect(page.locator(".opblock-tag", { hasText: "Auth" }).first().isVisible()).resolves.toBe(true);

    mkdirSync(OUTPUT_DIR, { recursive: true });
    await page.screenshot({ path: join(OUTPUT_DIR, "swagger.png"), fullPage: true });

    // Nothing tried to leave the machine (no CDN script, font or validator badge), and
    // every local request succeeded.
    expect(blocked).toEqual([]);
    expect(failed).toEqual([]);
    await page.close();
  }, SLOW_MS);
});
