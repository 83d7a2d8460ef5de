// The Reports page as a team lead sees it, and satisfaction as a visitor gives it: a visitor
// rates a closed conversation in the widget and the rating shows in the summary and in the
// conversation; every chart draws (uPlot canvases, the heatmap table) at 1366×900 and 390×844
// without the page growing sideways; a CSV download is byte for byte what the API answers.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync } from "node:fs";
import type { Browser, BrowserContext, Page } from "playwright-core";
import type { RunningServer } from "../../src/server.ts";
import { apiCall, launch, localContext, screenshot, skipBrowser, SLOW_MS, startHostSite, startPlatform, UI_WAIT_MS, type HostSite } from "./support.ts";

setDefaultTimeout(SLOW_MS);

describe.skipIf(skipBrowser)("reports and satisfaction", () => {
  let server: RunningServer;
  let site: HostSite;
  let browser: Browser;
  const blocked: string[] = [];
  const contexts: BrowserContext[] = [];
  const failures: string[] = [];
  let owner: { token: string; email: string };
  let bot: { id: string; token: string; widget_key: string };

  const context = async (viewport: { width: number; height: number }) => {
    const c = await localContext(browser, blocked, { viewport, acceptDownloads: true });
    contexts.push(c);
    return c;
  };

  async function cabinet(viewport: { width: number; height: number }, hash: string): Promise<Page> {
    const c = await context(viewport);
    await c.addInitScript(([token, email]) => {
      localStorage.setItem("botinbox:token", token!);
      localStorage.setItem("botinbox:email", email!);
    }, [owner.token, owner.email]);
    const page = await c.newPage();
    page.on("pageerror", (err) => failures.push(`page error: ${err.message}`));
    await page.goto(`${server.url}/${hash}`);
    return page;
  }

  beforeAll(async () => {
    server = await startPlatform();
    site = startHostSite(server.url);
    browser = await launch();
    const email = `lead.${crypto.randomUUID().slice(0, 8)}@example.com`;
    owner = { token: (await apiCall(server.url, "POST", "/api/auth/register", { email, password: "secret123" })).token, email };
    bot = await apiCall(server.url, "POST", "/api/bots", { name: "Reports bot" }, owner.token);
    // A history on two channels: the bot answers some, an operator takes one over, most are closed.
    for (const [chat, channel] of [["api-1", "custom_api"], ["api-2", "custom_api"], ["web-1", "web"]] as const) {
      await apiCall(server.url, "POST", "/api/messages", { bot_id: bot.id, chat_id: chat, channel, text: `hello from ${chat}` });
      await apiCall(server.url, "POST", `/api/bots/${bot.id}/send-message`, { chat_id: chat, text: "Hi! How can I help?" }, bot.token);
    }
    const list = await apiCall(server.url, "GET", `/api/inbox?bot_id=${bot.id}`, undefined, owner.token);
    const idOf = (chat: string) => list.find((c: { chat_id: string }) => c.chat_id === chat).id;
    await apiCall(server.url, "POST", `/api/inbox/${idOf("api-2")}/takeover`, {}, owner.token);
    await apiCall(server.url, "POST", `/api/inbox/${idOf("api-2")}`, { text: "A human here." }, owner.token);
    for (const chat of ["api-1", "api-2"]) await apiCall(server.url, "PATCH", `/api/inbox/${idOf(chat)}`, { status: "closed" }, owner.token);
  }, SLOW_MS);

  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => {});
    await browser?.close();
    site?.stop();
    await server?.stop();
  }, SLOW_MS);

  test("a visitor rates a closed conversation in the widget; the rating shows in the summary and the conversation", async () => {
    const page = await (await context({ width: 1280, height: 800 })).newPage();
    await page.goto(site.page("host", bot.widget_key));
    await page.getByRole("button", { name: "Open chat" }).click();
    const input = page.getByRole("textbox", { name: "Message" });
    await input.fill("Where is my parcel?");
    await input.press("Enter");
    await page.locator(".msg.in[data-id]", { hasText: "Where is my parcel?" }).waitFor({ timeout: UI_WAIT_MS });
    const conversation = (await apiCall(server.url, "GET", `/api/inbox?bot_id=${bot.id}`, undefined, owner.token))
      .find((c: { channel: string }) => c.channel === "widget");
    await apiCall(server.url, "POST", `/api/inbox/${conversation.id}`, { text: "It left the warehouse today." }, owner.token);
    await apiCall(server.url, "PATCH", `/api/inbox/${conversation.id}`, { status: "closed" }, owner.token);

    const prompt = page.getByRole("form", { name: "Rate this conversation" });
    await prompt.waitFor({ timeout: UI_WAIT_MS });
    await prompt.getByRole("button", { name: "4 of 5" }).click();
    await prompt.getByRole("textbox", { name: "Comment (optional)" }).fill("Quick answer");
    await prompt.getByRole("button", { name: "Send rating" }).click();
    await page.getByText("Thank you for your rating!").waitFor({ timeout: UI_WAIT_MS });
    await screenshot(page, "widget-rating");

    const summary = await apiCall(server.url, "GET", `/api/reports/summary?bot_id=${bot.id}`, undefined, owner.token);
    expect(summary.csat).toEqual({ count: 1, average: 4 });
    // A reload does not ask again: the conversation was rated.
    await page.reload();
    await page.getByRole("button", { name: "Open chat" }).click();
    await page.locator(".msg[data-id]", { hasText: "It left the warehouse today." }).waitFor({ timeout: UI_WAIT_MS });
    expect(await page.locator("botinbox-widget").locator(".rate").count()).toBe(0);

    const inbox = await cabinet({ width: 1366, height: 900 }, `#/inbox/${conversation.id}`);
    await inbox.getByLabel("4 of 5").waitFor({ timeout: UI_WAIT_MS });
    expect(await inbox.getByText("Quick answer").count()).toBeGreaterThan(0);
  });

  for (const viewport of [{ width: 1366, height: 900 }, { width: 390, height: 844 }]) {
    test(`the Reports page draws every chart at ${viewport.width}×${viewport.height}, and its CSV is the API's`, async () => {
      const page = await cabinet(viewport, "#/reports");
      await page.getByRole("heading", { name: "Reports", level: 1 }).waitFor({ timeout: UI_WAIT_MS });
      for (const chart of ["conversations", "first_response", "resolution"]) {
        await page.locator(`[data-chart="${chart}"] canvas`).first().waitFor({ timeout: UI_WAIT_MS });
        // Each chart has its table for screen readers, with a row per drawn bucket.
        expect(await page.locator(`[data-chart="${chart}"] table tbody tr`).count()).toBeGreaterThan(0);
      }
      const cells = await page.locator('[data-chart="heatmap"] td').allTextContents();
      expect(cells).toHaveLength(7 * 24);
      expect(cells.map(Number).reduce((a, b) => a + b, 0)).toBe(4);
      const card = (name: string) => page.locator(".report-card", { has: page.getByText(name, { exact: true }) }).locator("strong").textContent();
      expect(await card("Conversations")).toBe("4");
      expect(await card("Satisfaction")).toBe("4.0 / 5");
      // Nothing runs past the right edge (the heatmap scrolls inside its own box on a phone).
      const past = await page.evaluate(() => [...document.body.querySelectorAll("*")]
        .filter((el) => !el.closest(".heatmap-scroll, .sr-only") && el.getBoundingClientRect().width > 0 && el.getBoundingClientRect().right > innerWidth + 0.5)
        .map((el) => `${el.tagName.toLowerCase()}.${el.className}: ${Math.round(el.getBoundingClientRect().right)}`));
      expect(past).toEqual([]);
      expect(await page.evaluate(() => document.documentElement.scrollWidth - innerWidth)).toBeLessThanOrEqual(0);
      await screenshot(page, `reports-${viewport.width}`, true);

      const asked = page.waitForRequest((r) => r.url().includes("/api/reports/series") && r.url().includes("format=csv"));
      const downloaded = page.waitForEvent("download");
      await page.getByRole("button", { name: "Download conversations opened as CSV" }).click();
      const [request, download] = await Promise.all([asked, downloaded]);
      const file = readFileSync((await download.path())!, "utf8");
      const fromApi = await (await fetch(request.url(), { headers: { authorization: `Bearer ${owner.token}` } })).text();
      expect(file).toBe(fromApi);
      expect(file.split("\r\n")[0]).toBe("t,key,value");
      expect(file).toContain(",custom_api,2\r\n");
      expect(failures).toEqual([]);
    });
  }

  test("a bot with no conversations says so instead of drawing empty charts", async () => {
    const empty = await apiCall(server.url, "POST", "/api/bots", { name: "Quiet bot" }, owner.token);
    const page = await cabinet({ width: 1366, height: 900 }, "#/reports");
    await page.getByLabel("Bot").selectOption(empty.id);
    await page.getByRole("heading", { name: "No conversations yet" }).waitFor({ timeout: UI_WAIT_MS });
    expect(await page.locator("[data-chart]").count()).toBe(0);
  });
});
