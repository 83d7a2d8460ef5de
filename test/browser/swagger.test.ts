// /swagger must render with no internet (docs/design.md §8): a real Chromium loads it from a real
// server while every request that leaves this machine is refused and recorded.
//
// Browser: Debian's /usr/bin/chromium driven by playwright-core's own launch (pipe
// transport). It works under Bun as it does under Node, so no CDP-over-websocket
// workaround is needed; playwright never downloads a browser here.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Browser, BrowserContext } from "playwright-core";
import type { RunningServer } from "../../src/server.ts";
import { launch, localContext, OUTPUT_DIR, skipBrowser, SLOW_MS, startPlatform } from "./support.ts";

setDefaultTimeout(SLOW_MS);

describe.skipIf(skipBrowser)("swagger UI in a real browser", () => {
  let server: RunningServer;
  let browser: Browser;
  let context: BrowserContext;
  const blocked: string[] = [];

  beforeAll(async () => {
    server = await startPlatform();
    browser = await launch();
    context = await localContext(browser, blocked, { viewport: { width: 1280, height: 2000 } });
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
