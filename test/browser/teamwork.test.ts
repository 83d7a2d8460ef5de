// A support team's day in a real Chromium: a member's presence changes show live in another
// member's cabinet (the header's switch, the inbox's dots and the team page); the widget
// outside working hours shows the away state and the away message once; routing, hours and
// snooze in the cabinet.
import { afterAll, afterEach, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { Browser, BrowserContext, BrowserContextOptions, Page } from "playwright-core";
import type { RunningServer } from "../../src/server.ts";
import { uniqueEmail } from "../support/harness.ts";
import { apiCall, launch, localContext, screenshot, skipBrowser, SLOW_MS, startHostSite, startPlatform, UI_WAIT_MS, type HostSite } from "./support.ts";

setDefaultTimeout(SLOW_MS);

const DESKTOP: BrowserContextOptions = { viewport: { width: 1366, height: 900 } };
const NEVER_OPEN = { mon: [], tue: [], wed: [], thu: [], fri: [], sat: [], sun: [] };

describe.skipIf(skipBrowser)("presence, hours and snooze in a real browser", () => {
  let server: RunningServer;
  let site: HostSite;
  let browser: Browser;
  const blocked: string[] = [];
  const contexts: BrowserContext[] = [];
  const failures: string[] = [];
  const password = "secret123";
  const owner = { email: uniqueEmail("owner"), token: "", id: "" };
  const operator = { email: uniqueEmail("operator"), token: "", id: "" };
  let bot: any;

  beforeAll(async () => {
    server = await startPlatform();
    site = startHostSite(server.url);
    browser = await launch();
    for (const who of [owner, operator]) {
      const registered = await apiCall(server.url, "POST", "/api/auth/register", { email: who.email, password });
      who.token = registered.token;
      who.id = registered.user.id;
    }
    bot = await apiCall(server.url, "POST", "/api/bots", { name: "Day bot" }, owner.token);
    await apiCall(server.url, "PATCH", `/api/bots/${bot.id}/channels`, { channel_type: "widget", config: { title: "Day chat" } }, owner.token);
    const invite = await apiCall(server.url, "POST", `/api/bots/${bot.id}/invites`, { email: operator.email }, owner.token);
    await apiCall(server.url, "POST", "/api/invites/accept", { code: invite.code }, operator.token);
  }, SLOW_MS);

  afterEach(async () => {
    for (const context of contexts.splice(0)) await context.close().catch(() => {});
    expect(failures.splice(0)).toEqual([]);
  });

  afterAll(async () => {
    await browser?.close();
    site?.stop();
    await server?.stop();
  }, SLOW_MS);

  async function newPage(options: BrowserContextOptions, session?: { token: string; email: string }): Promise<Page> {
    const context = await localContext(browser, blocked, options);
    contexts.push(context);
    if (session) {
      await context.addInitScript(([token, email]) => {
        localStorage.setItem("botinbox:token", token!);
        localStorage.setItem("botinbox:email", email!);
      }, [session.token, session.email]);
    }
    const page = await context.newPage();
    page.on("pageerror", (err) => failures.push(`page error: ${err.message}`));
    return page;
  }

  const dotOf = (page: Page, email: string) => page.getByRole("list", { name: "Team presence" }).locator(`[data-member="${email}"]`);

  test("a member's presence changes show live in another member's cabinet", async () => {
    const ownerPage = await newPage(DESKTOP, owner);
    await ownerPage.goto(`${server.url}/#/inbox`);
    // The operator has no cabinet open yet: offline in the owner's inbox.
    await expect(dotOf(ownerPage, operator.email).getAttribute("data-presence")).resolves.toBe("offline");

    // Opening the cabinet makes the operator online (automatic), live in the owner's inbox.
    const operatorPage = await newPage(DESKTOP, operator);
    await operatorPage.goto(`${server.url}/#/inbox`);
    await ownerPage.locator(`[data-presence="online"][data-member="${operator.email}"]`).waitFor({ timeout: UI_WAIT_MS });

    // The operator switches to away in the header: the owner sees it without a reload.
    await operatorPage.getByLabel("Your presence").selectOption("away");
    await ownerPage.locator(`[data-presence="away"][data-member="${operator.email}"]`).waitFor({ timeout: UI_WAIT_MS });
    await screenshot(ownerPage, "teamwork-presence-inbox");

    // The owner's team page shows it too, and follows the next change live.
    await ownerPage.goto(`${server.url}/#/bots/${bot.id}`);
    const members = ownerPage.getByRole("list", { name: "Members" });
    await members.locator(`[data-presence="away"][data-member="${operator.email}"]`).waitFor({ timeout: UI_WAIT_MS });
    await operatorPage.getByLabel("Your presence").selectOption("auto");
    await members.locator(`[data-presence="online"][data-member="${operator.email}"]`).waitFor({ timeout: UI_WAIT_MS });

    // Closing the operator's cabinet makes them offline again.
    await operatorPage.context().close();
    await members.locator(`[data-presence="offline"][data-member="${operator.email}"]`).waitFor({ timeout: UI_WAIT_MS });
    await screenshot(ownerPage, "teamwork-presence-team-page");
  });

  test("an inbox opened while the server fails for a moment fills in its bots and team strip by itself", async () => {
    const page = await newPage(DESKTOP, owner);
    // The first answer of each is a 503, as during a restart; nothing reloads the page.
    const unavailable = (path: string) => {
      let failed = 0;
      return page.route(path, async (route) => {
        if (route.request().method() !== "GET" || failed++ > 0) return route.fallback();
        await route.fulfill({ status: 503, contentType: "application/json", body: JSON.stringify({ ok: false, error: "restarting", error_code: 503 }) });
      });
    };
    await unavailable("**/api/bots");
    await unavailable(`**/api/bots/${bot.id}/assignees`);
    await page.goto(`${server.url}/#/inbox`);
    await dotOf(page, operator.email).waitFor({ timeout: UI_WAIT_MS });
    await expect(page.getByLabel("Bot", { exact: true }).locator("option").allTextContents()).resolves.toContain("Day bot");
  });

  test("the owner sets routing and working hours on the bot page", async () => {
    const page = await newPage(DESKTOP, owner);
    await page.goto(`${server.url}/#/bots/${bot.id}`);
    await page.getByLabel("Mode").selectOption("least_busy");
    await page.getByLabel("Open conversations per member").fill("4");
    await page.getByRole("button", { name: "Save routing" }).click();
    await page.getByText("Routing saved").waitFor({ timeout: UI_WAIT_MS });
    expect(await apiCall(server.url, "GET", `/api/bots/${bot.id}/routing`, undefined, owner.token)).toMatchObject({ mode: "least_busy", capacity: 4 });

    await page.getByLabel("Time zone").fill("Europe/Berlin");
    await page.getByLabel("Saturday").fill("10:00-14:00");
    await page.getByLabel("Away message").fill("Back on Monday");
    await page.getByRole("button", { name: "Save hours" }).click();
    await page.getByText("Working hours saved").waitFor({ timeout: UI_WAIT_MS });
    const hours = await apiCall(server.url, "GET", `/api/bots/${bot.id}/hours`, undefined, owner.token);
    expect(hours).toMatchObject({ timezone: "Europe/Berlin", away_message: "Back on Monday", configured: true });
    expect(hours.weekly.sat).toEqual([["10:00", "14:00"]]);
    await page.locator("#hours-title").scrollIntoViewIfNeeded();
    await screenshot(page, "teamwork-bot-page");
    await apiCall(server.url, "PUT", `/api/bots/${bot.id}/routing`, { mode: "off" }, owner.token);
  });

  test("outside working hours the widget shows the away state and the away message once", async () => {
    const away = "We're closed now and answer from 9:00 tomorrow.";
    const closed = await apiCall(server.url, "POST", "/api/bots", { name: "Night bot" }, owner.token);
    await apiCall(server.url, "PUT", `/api/bots/${closed.id}/hours`, { timezone: "UTC", weekly: NEVER_OPEN, away_message: away }, owner.token);

    const visitor = await newPage({ viewport: { width: 1280, height: 800 } });
    await visitor.goto(site.page("host", closed.widget_key));
    const launcher = visitor.getByRole("button", { name: "Open chat" });
    await launcher.waitFor({ timeout: UI_WAIT_MS });
    await launcher.click();
    const state = visitor.getByRole("dialog").locator(".away");
    await state.waitFor({ timeout: UI_WAIT_MS });
    await expect(state.textContent()).resolves.toBe(away);

    const input = visitor.getByRole("textbox", { name: "Message" });
    const log = visitor.getByRole("log");
    for (const text of ["Hello, anyone?", "I need help with my order"]) {
      await input.fill(text);
      await input.press("Enter");
      await log.locator(".msg.in[data-id]", { hasText: text }).waitFor({ timeout: UI_WAIT_MS });
    }
    await log.locator(".msg.out", { hasText: away }).waitFor({ timeout: UI_WAIT_MS });
    // Both messages answered by one away message, in the visitor's chat once.
    await Bun.sleep(500);
    await expect(log.locator(".msg.out", { hasText: away }).count()).resolves.toBe(1);
    await screenshot(visitor, "teamwork-widget-away");
  });

  test("an operator snoozes a conversation from its header", async () => {
    const chat = `snooze-${Date.now()}`;
    const sent = await apiCall(server.url, "POST", "/api/messages", { widget_key: bot.widget_key, chat_id: chat, text: "Call me tomorrow" });
    const page = await newPage(DESKTOP, operator);
    await page.goto(`${server.url}/#/inbox/${sent.conversation_id}`);
    await page.locator(".messages .bubble.in", { hasText: "Call me tomorrow" }).waitFor({ timeout: UI_WAIT_MS });
    await page.getByLabel("Snooze", { exact: true }).selectOption("Tomorrow 9:00");
    await page.getByText(/^Snoozed until/).waitFor({ timeout: UI_WAIT_MS });
    const [conversation] = (await apiCall(server.url, "GET", `/api/inbox?bot_id=${bot.id}&q=${chat}`, undefined, operator.token));
    expect(conversation.status).toBe("waiting");
    expect(Date.parse(conversation.snoozed_until)).toBeGreaterThan(Date.now() + 3_600_000);
    await screenshot(page, "teamwork-snoozed");
    await page.getByRole("button", { name: "Wake now" }).click();
    await page.getByText("Reopened").waitFor({ timeout: UI_WAIT_MS });
  });
});
