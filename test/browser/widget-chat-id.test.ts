// The widget's chat id is the visitor's only key to their history. On a page where
// crypto.randomUUID is missing (plain http on a real host name), it must still come from
// the browser's cryptographic generator, never from Math.random or the clock.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { Browser, BrowserContext } from "playwright-core";
import type { RunningServer } from "../../src/server.ts";
import { uniqueEmail } from "../support/harness.ts";
import { apiCall, launch, localContext, skipBrowser, SLOW_MS, startHostSite, startPlatform, UI_WAIT_MS, type HostSite } from "./support.ts";

setDefaultTimeout(SLOW_MS);

describe.skipIf(skipBrowser)("widget chat ids", () => {
  let server: RunningServer;
  let site: HostSite;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    server = await startPlatform();
    site = startHostSite(server.url);
    browser = await launch();
  }, SLOW_MS);

  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => {});
    await browser?.close();
    site?.stop();
    await server?.stop();
  }, SLOW_MS);

  test("without crypto.randomUUID, chat ids are 128 random bits even when Math.random and the clock repeat", async () => {
    const registered = await apiCall(server.url, "POST", "/api/auth/register", { email: uniqueEmail("rand"), password: "secret123" });
    const bot = await apiCall(server.url, "POST", "/api/bots", { name: "Random ids" }, registered.token);
    const ids: string[] = [];
    for (let visit = 0; visit < 2; visit++) {
      const context = await localContext(browser, []);
      contexts.push(context);
      await context.addInitScript(() => {
        Object.defineProperty(Crypto.prototype, "randomUUID", { value: undefined, configurable: true });
        Math.random = () => 0.5;
        Date.now = () => 1_700_000_000_000;
      });
      const page = await context.newPage();
      await page.goto(site.page("host", bot.widget_key));
      await page.getByRole("button", { name: "Open chat" }).waitFor({ timeout: UI_WAIT_MS });
      const id = await page.evaluate((key) => localStorage.getItem(`botinbox:chat:${key}`), bot.widget_key);
      ids.push(String(id));
    }
    for (const id of ids) expect(id).toMatch(/^w_[0-9a-f]{32}$/);
    expect(ids[0]).not.toBe(ids[1]);
  });
});
