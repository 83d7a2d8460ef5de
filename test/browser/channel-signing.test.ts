// The cabinet recommends signed requests for server channels: the CRM's settings offer
// "Require signed requests (recommended)", and saving it makes unsigned posts to that
// channel 401. Clearing a field removes it (the server merges what the form sends).
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import type { RunningServer } from "../../src/server.ts";
import { uniqueEmail } from "../support/harness.ts";
import { apiCall, launch, localContext, screenshot, skipBrowser, SLOW_MS, startPlatform, UI_WAIT_MS } from "./support.ts";

setDefaultTimeout(SLOW_MS);

describe.skipIf(skipBrowser)("signed requests in the cabinet", () => {
  let server: RunningServer;
  let browser: Browser;
  let page: Page;
  const failures: string[] = [];

  beforeAll(async () => {
    server = await startPlatform();
    browser = await launch();
    page = await (await localContext(browser, [], { viewport: { width: 1280, height: 900 } })).newPage();
    page.on("pageerror", (err) => failures.push(`page error: ${err.message}`));
  }, SLOW_MS);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  }, SLOW_MS);

  test("turning on Require signed requests for the CRM refuses unsigned posts; clearing a field removes it", async () => {
    const email = uniqueEmail("signing");
    const { token } = await apiCall(server.url, "POST", "/api/auth/register", { email, password: "secret123" });
    const bot = await apiCall(server.url, "POST", "/api/bots", { name: "Signed CRM" }, token);
    await page.goto(`${server.url}/#/login`);
    await page.getByLabel("E-mail").fill(email);
    await page.getByLabel("Password").fill("secret123");
    await page.getByRole("button", { name: "Log in" }).click();
    await page.getByRole("heading", { name: "Inbox" }).waitFor({ timeout: UI_WAIT_MS });
    await page.goto(`${server.url}/#/bots/${bot.id}`);
    await page.getByRole("heading", { name: "Signed CRM" }).waitFor({ timeout: UI_WAIT_MS });

    const crm = page.locator(".channel", { hasText: "CRM" });
    await crm.getByRole("button", { name: "Configure" }).click();
    const require = crm.getByLabel(/Require signed requests \(recommended\)/);
    await expect(require.isChecked()).resolves.toBe(false);
    await crm.getByLabel("Callback URL", { exact: false }).fill("https://crm.example/in");
    await crm.getByLabel("Signing secret").fill("crm-signing-secret");
    await require.check();
    await crm.getByRole("button", { name: "Save" }).click();
    await page.getByText("Settings saved").waitFor({ timeout: UI_WAIT_MS });
    await screenshot(page, "cabinet-crm-signing");

    const post = (body: unknown) => fetch(`${server.url}/api/messages`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    expect((await post({ bot_id: bot.id, chat_id: "ticket-1", channel: "crm", text: "unsigned" })).status).toBe(401);

    // Clearing the callback URL removes it and keeps the rest.
    await crm.getByLabel("Callback URL", { exact: false }).fill("");
    await crm.getByRole("button", { name: "Save" }).click();
    const crmConfig = async () => (await apiCall(server.url, "GET", `/api/bots/${bot.id}/channels`, undefined, token)).find((c: any) => c.channel_type === "crm").config;
    for (let i = 0; i < 50 && (await crmConfig()).callback_url !== undefined; i++) await Bun.sleep(100);
    expect(await crmConfig()).toEqual({ secret: "crm-signing-secret", require_signature: true });
    expect(failures).toEqual([]);
  });
});
