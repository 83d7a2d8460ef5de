// The cabinet in a real Chromium: register → create a bot → copy the snippet → toggle and
// configure channels → rotate the token; then the inbox's search and filters, log out and in.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import type { RunningServer } from "../../src/server.ts";
import { uniqueEmail } from "../support/harness.ts";
import { apiCall, launch, localContext, screenshot, skipBrowser, SLOW_MS, startPlatform, UI_WAIT_MS } from "./support.ts";

setDefaultTimeout(SLOW_MS);

describe.skipIf(skipBrowser)("cabinet in a real browser", () => {
  let server: RunningServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const blocked: string[] = [];
  const failures: string[] = [];
  const email = uniqueEmail("cabinet");
  const password = "secret123";
  let token: string;

  const clipboard = () => page.evaluate(() => navigator.clipboard.readText());

  beforeAll(async () => {
    server = await startPlatform();
    browser = await launch();
    context = await localContext(browser, blocked, { viewport: { width: 1280, height: 900 } });
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: server.url });
    page = await context.newPage();
    page.on("requestfailed", (req) => {
      if (!(req.url().includes("/stream") && req.failure()?.errorText.includes("ERR_ABORTED"))) failures.push(`${req.url()} ${req.failure()?.errorText}`);
    });
    page.on("pageerror", (err) => failures.push(`page error: ${err.message}`));
  }, SLOW_MS);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  }, SLOW_MS);

  test("register → create bot → copy snippet → toggle a channel", async () => {
    await page.goto(`${server.url}/`);
    await page.getByRole("heading", { name: "Log in to your inbox" }).waitFor({ timeout: UI_WAIT_MS });
    await screenshot(page, "cabinet-login");
    await page.getByRole("link", { name: "Create an account" }).click();
    await page.getByLabel("E-mail").fill(email);
    await page.getByLabel("Password").fill(password);
    await page.getByRole("button", { name: "Create account" }).click();
    await page.getByRole("heading", { name: "Bots", exact: true }).waitFor({ timeout: UI_WAIT_MS });
    token = (await page.evaluate(() => localStorage.getItem("botinbox:token")))!;
    expect(token).toBeTruthy();

    await page.getByLabel("Name").fill("Shop helper");
    await page.getByRole("button", { name: "Create bot" }).click();
    await page.getByRole("heading", { name: "Shop helper" }).waitFor({ timeout: UI_WAIT_MS });
    const [bot] = await apiCall(server.url, "GET", "/api/bots", undefined, token);

    // The snippet names this server and the bot's widget key, and is what gets copied.
    const expected = `<script src="${server.url}/widget.js" data-widget-key="${bot.widget_key}" data-api-url="${server.url}" async></script>`;
    await expect(page.getByLabel("Embed snippet").textContent()).resolves.toBe(expected);
    await page.getByRole("button", { name: "Copy snippet" }).click();
    await expect(clipboard()).resolves.toBe(expected);

    // The token is masked until shown; copy gives the real one.
    await expect(page.locator("code.secret").textContent()).resolves.toContain("•");
    await page.getByRole("button", { name: "Show" }).click();
    await expect(page.locator("code.secret").textContent()).resolves.toBe(bot.token);
    await page.getByRole("button", { name: "Copy token" }).click();
    await expect(clipboard()).resolves.toBe(bot.token);
    await page.getByRole("button", { name: "Copy widget key" }).click();
    await expect(clipboard()).resolves.toBe(bot.widget_key);

    // Updates delivery: no webhook, so polling.
    await page.locator(".webhook", { hasText: "Polling" }).waitFor({ timeout: UI_WAIT_MS });

    // Channels: switch e-mail off, and back on.
    const emailSwitch = page.getByRole("switch", { name: "E-mail channel" });
    await expect(emailSwitch.getAttribute("aria-checked")).resolves.toBe("true");
    await emailSwitch.click();
    await page.locator('[role="switch"][aria-label="E-mail channel"][aria-checked="false"]').waitFor({ timeout: UI_WAIT_MS });
    const channels = await apiCall(server.url, "GET", `/api/bots/${bot.id}/channels`, undefined, token);
    expect(channels.find((c: any) => c.channel_type === "email").is_active).toBe(false);
    await emailSwitch.click();
    await page.locator('[role="switch"][aria-label="E-mail channel"][aria-checked="true"]').waitFor({ timeout: UI_WAIT_MS });

    // Configure the widget.
    const widgetRow = page.locator(".channel", { hasText: "Website widget" });
    await widgetRow.getByRole("button", { name: "Configure" }).click();
    await widgetRow.getByLabel("Title", { exact: true }).fill("Shop chat");
    await widgetRow.getByLabel("Greeting").fill("Hello! How can we help?");
    await widgetRow.getByLabel(/Allowed origins/).fill("https://shop.example\nhttps://www.shop.example");
    await widgetRow.getByRole("button", { name: "Save" }).click();
    await page.getByText("Settings saved").waitFor({ timeout: UI_WAIT_MS });
    const config = await apiCall(server.url, "GET", `/api/widget/config?widget_key=${bot.widget_key}`);
    expect(config).toMatchObject({ title: "Shop chat", greeting: "Hello! How can we help?" });
    const saved = await apiCall(server.url, "GET", `/api/bots/${bot.id}/channels`, undefined, token);
    expect(saved.find((c: any) => c.channel_type === "widget").config.allowed_origins).toEqual(["https://shop.example", "https://www.shop.example"]);
    await page.evaluate(() => window.scrollTo(0, 0));
    await screenshot(page, "cabinet-bot-card");

    // Rotating the token shows the new one and retires the old.
    page.once("dialog", (dialog) => void dialog.accept());
    await page.getByRole("button", { name: "Rotate" }).click();
    await page.getByText("New token issued").waitFor({ timeout: UI_WAIT_MS });
    const [rotated] = await apiCall(server.url, "GET", "/api/bots", undefined, token);
    expect(rotated.token).not.toBe(bot.token);
    await expect(page.locator("code.secret").textContent()).resolves.toBe(rotated.token);
    const old = await fetch(`${server.url}/api/bot/get-me`, { headers: { authorization: `Bearer ${bot.token}` } });
    expect(old.status).toBe(401);

    expect(blocked).toEqual([]);
    expect(failures).toEqual([]);
  });

  test("inbox search and filters; log out and back in", async () => {
    const [bot] = await apiCall(server.url, "GET", "/api/bots", undefined, token);
    await apiCall(server.url, "POST", "/api/messages", { bot_id: bot.id, chat_id: "alpha", channel: "web", text: "I want a refund please", user: { first_name: "Ada" } });
    await apiCall(server.url, "POST", "/api/messages", { bot_id: bot.id, chat_id: "beta", channel: "web", text: "Just saying hello", user: { first_name: "Bob" } });

    await page.getByRole("link", { name: "Inbox", exact: true }).click();
    const items = page.locator(".conv");
    await items.nth(1).waitFor({ timeout: UI_WAIT_MS });
    await expect(items.count()).resolves.toBe(2);

    await page.getByRole("searchbox", { name: "Search conversations" }).fill("refund");
    await page.locator(".conv", { hasText: "Bob" }).waitFor({ state: "detached", timeout: UI_WAIT_MS });
    await expect(items.count()).resolves.toBe(1);
    await expect(items.first().textContent()).resolves.toContain("Ada");
    await page.getByRole("searchbox", { name: "Search conversations" }).fill("");
    await items.nth(1).waitFor({ timeout: UI_WAIT_MS });

    // Status tabs with their counts.
    const tabs = page.getByRole("group", { name: "Filter by status" });
    await tabs.getByRole("button", { name: "New, 2" }).waitFor({ timeout: UI_WAIT_MS });
    await tabs.getByRole("button", { name: /^Closed, 0/ }).click();
    await page.getByText("No conversations match.").waitFor({ timeout: UI_WAIT_MS });
    await tabs.getByRole("button", { name: /^New/ }).click();
    await items.nth(1).waitFor({ timeout: UI_WAIT_MS });
    await page.getByLabel("Bot", { exact: true }).selectOption({ label: "Shop helper" });
    await items.nth(1).waitFor({ timeout: UI_WAIT_MS });

    // A message arriving now shows up without a reload, in the filtered list.
    await apiCall(server.url, "POST", "/api/messages", { bot_id: bot.id, chat_id: "gamma", channel: "web", text: "Live one", user: { first_name: "Cy" } });
    await page.locator(".conv", { hasText: "Live one" }).waitFor({ timeout: UI_WAIT_MS });
    await page.locator(".conv", { hasText: "Ada" }).click();
    await page.locator(".bubble", { hasText: "I want a refund please" }).waitFor({ timeout: UI_WAIT_MS });
    await screenshot(page, "cabinet-inbox-filters");

    // The account page changes the password (this tab keeps working) and links the API reference.
    await page.getByRole("link", { name: "Account" }).click();
    await page.getByLabel("Current password").fill("not-the-password");
    await page.getByLabel("New password").fill("secret456");
    await page.getByRole("button", { name: "Change password" }).click();
    await page.getByText("The current password is not right.").waitFor({ timeout: UI_WAIT_MS });
    await page.getByLabel("Current password").fill(password);
    await page.getByRole("button", { name: "Change password" }).click();
    await page.getByText("Password changed").waitFor({ timeout: UI_WAIT_MS });
    await expect(page.getByRole("link", { name: /API reference/ }).getAttribute("href")).resolves.toBe("/swagger");
    const old = await fetch(`${server.url}/api/bots`, { headers: { authorization: `Bearer ${token}` } });
    expect(old.status).toBe(401);
    await page.getByRole("link", { name: "Inbox", exact: true }).click();
    await items.first().waitFor({ timeout: UI_WAIT_MS });

    await page.getByRole("button", { name: "Log out" }).first().click();
    await page.getByRole("heading", { name: "Log in to your inbox" }).waitFor({ timeout: UI_WAIT_MS });
    await expect(page.evaluate(() => localStorage.getItem("botinbox:token"))).resolves.toBeNull();
    await page.getByLabel("E-mail").fill(email);
    await page.getByLabel("Password").fill(password);
    await page.getByRole("button", { name: "Log in" }).click();
    await page.getByRole("alert").filter({ hasText: /./ }).waitFor({ timeout: UI_WAIT_MS });
    await page.getByLabel("Password").fill("secret456");
    await page.getByRole("button", { name: "Log in" }).click();
    // exact: the login page's own heading, "Log in to your inbox", also contains the word.
    await page.getByRole("heading", { name: "Inbox", exact: true }).waitFor({ timeout: UI_WAIT_MS });
    token = (await page.evaluate(() => localStorage.getItem("botinbox:token")))!;
    expect(blocked).toEqual([]);
    expect(failures).toEqual([]);
  });

  test("rename a bot; deleting it asks first and removes it", async () => {
    const created = await apiCall(server.url, "POST", "/api/bots", { name: "Short-lived" }, token);
    await page.goto(`${server.url}/#/bots/${created.id}`);
    await page.getByRole("heading", { name: "Short-lived" }).waitFor({ timeout: UI_WAIT_MS });
    await page.getByRole("button", { name: "Rename" }).click();
    await page.getByLabel("Bot name").fill("Renamed bot");
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await page.getByRole("heading", { name: "Renamed bot" }).waitFor({ timeout: UI_WAIT_MS });
    await expect(apiCall(server.url, "GET", `/api/bots/${created.id}`, undefined, token)).resolves.toMatchObject({ name: "Renamed bot" });

    // Dismissing the question keeps the bot; accepting it deletes the bot.
    page.once("dialog", (dialog) => void dialog.dismiss());
    await page.getByRole("button", { name: "Delete bot" }).click();
    await expect(apiCall(server.url, "GET", `/api/bots/${created.id}`, undefined, token)).resolves.toMatchObject({ name: "Renamed bot" });
    page.once("dialog", (dialog) => {
      expect(dialog.message()).toContain("Renamed bot");
      void dialog.accept();
    });
    await page.getByRole("button", { name: "Delete bot" }).click();
    await page.getByRole("heading", { name: "Bots", exact: true }).waitFor({ timeout: UI_WAIT_MS });
    const gone = await fetch(`${server.url}/api/bots/${created.id}`, { headers: { authorization: `Bearer ${token}` } });
    expect(gone.status).toBe(404);
    expect(failures).toEqual([]);
  });
});
