// The widget on a customer's page (another origin) and the operator's cabinet, live both
// ways, in a real Chromium: visitor writes → the inbox shows it live → the operator
// replies → the widget shows it live; a bot reply via send-message too; reload keeps the
// history. Plus a hostile page and a 360 px phone.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import type { RunningServer } from "../../src/server.ts";
import { sharedDb, uniqueEmail } from "../support/harness.ts";
import { seedInbox } from "./seed.ts";
import {
  apiCall, launch, localContext, screenshot, skipBrowser, SLOW_MS, startHostSite, startPlatform, UI_WAIT_MS, type HostSite,
} from "./support.ts";

setDefaultTimeout(SLOW_MS);

describe.skipIf(skipBrowser)("widget and cabinet in a real browser", () => {
  let server: RunningServer;
  let site: HostSite;
  let browser: Browser;
  const blocked: string[] = [];
  const contexts: BrowserContext[] = [];
  let user: { token: string; email: string };
  const password = "secret123";

  const context = async (options = {}) => {
    const c = await localContext(browser, blocked, options);
    contexts.push(c);
    return c;
  };

  /** Everything that failed to load, except streams cut short by a reload or close. */
  const watchFailures = (page: Page, failures: string[]) =>
    page.on("requestfailed", (req) => {
      const aborted = req.failure()?.errorText.includes("ERR_ABORTED");
      if (!(aborted && req.url().includes("/stream"))) failures.push(`${req.url()} ${req.failure()?.errorText}`);
    });

  const createBot = async (name: string, widgetConfig: Record<string, unknown> = {}) => {
    const bot = await apiCall(server.url, "POST", "/api/bots", { name }, user.token);
    await apiCall(server.url, "PATCH", `/api/bots/${bot.id}/channels`, { channel_type: "widget", config: widgetConfig }, user.token);
    return bot;
  };

  beforeAll(async () => {
    server = await startPlatform();
    site = startHostSite(server.url);
    browser = await launch();
    const email = uniqueEmail("operator");
    const registered = await apiCall(server.url, "POST", "/api/auth/register", { email, password });
    user = { token: registered.token, email };
  }, SLOW_MS);

  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => {});
    await browser?.close();
    site?.stop();
    await server?.stop();
  }, SLOW_MS);

  test("visitor ↔ operator live, bot reply live, history after reload", async () => {
    const bot = await createBot("Acme support", {
      title: "Acme support", subtitle: "We usually answer in minutes", greeting: "Hi! Ask us anything.",
      color: "#7c3aed", allowed_origins: [site.origin],
    });
    const failures: string[] = [];

    // The operator logs in to the cabinet and waits in the inbox.
    const operator = await (await context({ viewport: { width: 1280, height: 800 } })).newPage();
    watchFailures(operator, failures);
    await operator.goto(`${server.url}/#/login`);
    await operator.getByLabel("E-mail").fill(user.email);
    await operator.getByLabel("Password").fill(password);
    await operator.getByRole("button", { name: "Log in" }).click();
    await operator.getByRole("heading", { name: "Inbox" }).waitFor({ timeout: UI_WAIT_MS });
    await operator.locator(".live-state.live").waitFor({ timeout: UI_WAIT_MS });

    // The visitor opens the shop on another origin and writes.
    const visitor = await (await context({ viewport: { width: 1280, height: 800 } })).newPage();
    watchFailures(visitor, failures);
    await visitor.goto(site.page("host", bot.widget_key));
    const launcher = visitor.getByRole("button", { name: "Open chat" });
    await launcher.waitFor({ timeout: UI_WAIT_MS });
    await launcher.click();
    await expect(launcher.getAttribute("aria-expanded")).resolves.toBe("true");
    const dialog = visitor.getByRole("dialog", { name: "Acme support" });
    await dialog.waitFor({ timeout: UI_WAIT_MS });
    await visitor.getByText("Hi! Ask us anything.").waitFor({ timeout: UI_WAIT_MS });
    const input = visitor.getByRole("textbox", { name: "Message" });
    await expect(input.evaluate((el) => el === (el.getRootNode() as ShadowRoot).activeElement)).resolves.toBe(true);
    await input.fill("Do you ship to Norway?");
    await input.press("Enter");
    const log = visitor.getByRole("log");
    await log.locator(".msg.in[data-id]", { hasText: "Do you ship to Norway?" }).waitFor({ timeout: UI_WAIT_MS });
    await expect(input.inputValue()).resolves.toBe("");

    // It appears in the inbox without a reload; the operator opens it and replies.
    const item = operator.locator(".conv", { hasText: "Do you ship to Norway?" });
    await item.waitFor({ timeout: UI_WAIT_MS });
    await item.click();
    await operator.locator(".messages .bubble.in", { hasText: "Do you ship to Norway?" }).waitFor({ timeout: UI_WAIT_MS });
    await operator.getByRole("textbox", { name: "Reply" }).fill("Yes, delivery to Norway takes 3–5 days.");
    await operator.getByRole("button", { name: "Send", exact: true }).click();
    await operator.locator(".messages .bubble.out", { hasText: "3–5 days" }).waitFor({ timeout: UI_WAIT_MS });

    // The reply reaches the widget live.
    await log.locator(".msg.out", { hasText: "Yes, delivery to Norway takes 3–5 days." }).waitFor({ timeout: UI_WAIT_MS });

    // A bot reply through the runtime API reaches both live.
    const [conversation] = await apiCall(server.url, "GET", `/api/inbox?bot_id=${bot.id}`, undefined, user.token);
    await apiCall(server.url, "POST", `/api/bots/${bot.id}/send-message`, { chat_id: conversation.chat_id, text: "Tracking link: see your e-mail." }, bot.token);
    await log.locator(".msg.out", { hasText: "Tracking link" }).waitFor({ timeout: UI_WAIT_MS });
    await operator.locator(".messages .bubble.out.bot", { hasText: "Tracking link" }).waitFor({ timeout: UI_WAIT_MS });

    // The operator's status and note.
    await operator.getByLabel("Status", { exact: true }).selectOption("waiting");
    await operator.getByLabel("Operator note").fill("Wants Norway delivery");
    await operator.getByRole("button", { name: "Save note" }).click();
    await operator.getByText("Saved", { exact: true }).waitFor({ timeout: UI_WAIT_MS });
    const [after] = await apiCall(server.url, "GET", `/api/inbox?bot_id=${bot.id}`, undefined, user.token);
    expect(after).toMatchObject({ status: "waiting", operator_note: "Wants Norway delivery" });

    await screenshot(visitor, "widget-open");
    await screenshot(operator, "cabinet-inbox");

    // The message carries the page it was sent from.
    const history = await apiCall(server.url, "GET", `/api/messages?widget_key=${bot.widget_key}&chat_id=${conversation.chat_id}`);
    expect(history[0]).toMatchObject({ channel: "widget", metadata: { page_title: "Acme Shop" } });
    expect(history[0].metadata.page_url).toStartWith(site.origin);

    // After a reload the same chat comes back with its history, in order.
    await visitor.reload();
    await visitor.getByRole("button", { name: "Open chat" }).click();
    const texts = visitor.getByRole("log").locator(".msg:not(.greeting) > span:nth-child(2)");
    await texts.nth(2).waitFor({ timeout: UI_WAIT_MS });
    await expect(texts.allTextContents()).resolves.toEqual([
      "Do you ship to Norway?", "Yes, delivery to Norway takes 3–5 days.", "Tracking link: see your e-mail.",
    ]);
    await screenshot(visitor, "widget-after-reload");

    // Escape closes the panel and gives focus back to the launcher.
    await visitor.getByRole("textbox", { name: "Message" }).press("Escape");
    await expect(visitor.getByRole("button", { name: "Open chat" }).getAttribute("aria-expanded")).resolves.toBe("false");

    expect(blocked).toEqual([]);
    expect(failures).toEqual([]);
  });

  test("data attributes override the title; a refused origin shows no chat; a disabled channel says so, briefly", async () => {
    const bot = await createBot("Override bot", { title: "From config" });
    const page = await (await context()).newPage();
    await page.goto(site.page("host", bot.widget_key, { "data-title": "From the tag", "data-subtitle": "Tag subtitle" }));
    await page.getByRole("button", { name: "Open chat" }).click();
    await page.getByRole("dialog", { name: "From the tag" }).waitFor({ timeout: UI_WAIT_MS });
    await page.getByText("Tag subtitle").waitFor({ timeout: UI_WAIT_MS });

    // A refused origin is the site owner's to fix: visitors see no chat at all (the console
    // message for the owner is widget-first-minutes.test.ts's), and nothing names the config.
    const locked = await createBot("Locked bot", { allowed_origins: ["https://elsewhere.example"] });
    const refused = await (await context()).newPage();
    const answered = refused.waitForResponse((r) => r.url().includes("/api/widget/config"), { timeout: UI_WAIT_MS });
    await refused.goto(site.page("host", locked.widget_key));
    expect((await answered).status()).toBe(403);
    await Bun.sleep(500);
    await expect(refused.getByRole("button", { name: "Open chat" }).count()).resolves.toBe(0);
    await expect(refused.locator("body").innerText()).resolves.not.toContain("elsewhere.example");

    await apiCall(server.url, "PATCH", `/api/bots/${bot.id}/channels`, { channel_type: "widget", is_active: false }, user.token);
    const off = await (await context()).newPage();
    await off.goto(site.page("host", bot.widget_key));
    await off.getByRole("button", { name: "Open chat" }).click();
    await off.getByRole("status").filter({ hasText: "Chat is switched off at the moment." }).waitFor({ timeout: UI_WAIT_MS });
    expect(blocked).toEqual([]);
  });

  test("scrolling up pages in the whole history", async () => {
    const bot = await createBot("Chatty bot");
    const registered = await apiCall(server.url, "GET", "/api/auth/me", undefined, user.token);
    // 130 messages in the chat `seed-1` (seeded straight into the database), which this visitor's browser holds.
    await seedInbox(await sharedDb(), bot.id, registered.id, 1, 130);
    const ctx = await context();
    await ctx.addInitScript(([key]) => localStorage.setItem(`botinbox:chat:${key}`, "seed-1"), [bot.widget_key]);
    const page = await ctx.newPage();
    await page.goto(site.page("host", bot.widget_key));
    await page.getByRole("button", { name: "Open chat" }).click();
    const texts = page.getByRole("log").locator(".msg > span:nth-child(2)");
    await page.getByRole("log").getByText("Message number 130", { exact: true }).waitFor({ timeout: UI_WAIT_MS });
    await expect(texts.count()).resolves.toBeLessThan(130);
    for (let round = 0; round < 10 && (await texts.count()) < 130; round++) {
      const before = await texts.count();
      await page.getByRole("log").evaluate((log) => (log.scrollTop = 0));
      await page.waitForFunction(
        ([n]) => document.querySelector("botinbox-widget")!.shadowRoot!.querySelectorAll(".msg").length > n!, [before], { timeout: UI_WAIT_MS },
      );
    }
    await expect(texts.allTextContents()).resolves.toEqual(Array.from({ length: 130 }, (_, i) => `Message number ${i + 1}`));
    expect(blocked).toEqual([]);
  });

  test("a 429 shows 'slow down' and Retry sends it; without a stream the widget polls", async () => {
    const bot = await createBot("Busy bot");
    const ctx = await context();
    // The stream is refused, as a proxy that breaks event streams would: the widget must poll.
    await ctx.route("**/api/messages/stream?*", (route) => route.fulfill({ status: 404, body: "no streams here" }));
    const page = await ctx.newPage();
    await page.goto(site.page("host", bot.widget_key));
    await page.getByRole("button", { name: "Open chat" }).click();
    const input = page.getByRole("textbox", { name: "Message" });
    await input.waitFor({ timeout: UI_WAIT_MS });

    const limited = async (route: import("playwright-core").Route) => {
      if (route.request().method() !== "POST") return route.fallback();
      await route.fulfill({
        status: 429,
        headers: { "content-type": "application/json", "access-control-allow-origin": "*", "retry-after": "7" },
        body: JSON.stringify({ ok: false, error: "too many requests, retry after 7 s", error_code: 429, retry_after: 7 }),
      });
    };
    await ctx.route("**/api/messages", limited);
    await input.fill("Are you there?");
    await input.press("Enter");
    const failed = page.locator(".msg.in.failed", { hasText: "Are you there?" });
    await failed.waitFor({ timeout: UI_WAIT_MS });
    await expect(failed.textContent()).resolves.toContain("Slow down and try again in 7 s");
    await page.getByRole("status").filter({ hasText: "too fast" }).waitFor({ timeout: UI_WAIT_MS });
    await screenshot(page, "widget-rate-limited");
    await ctx.unroute("**/api/messages", limited);
    await failed.getByRole("button", { name: "Retry" }).click();
    await page.locator(".msg.in[data-id]", { hasText: "Are you there?" }).waitFor({ timeout: UI_WAIT_MS });

    // An operator reply arrives by polling (every few seconds) instead of the stream.
    const [conversation] = await apiCall(server.url, "GET", `/api/inbox?bot_id=${bot.id}`, undefined, user.token);
    expect(conversation.message_count).toBe(1);
    await apiCall(server.url, "POST", `/api/inbox/${conversation.id}`, { text: "Yes, polling works" }, user.token);
    await page.locator(".msg.out", { hasText: "Yes, polling works" }).waitFor({ timeout: UI_WAIT_MS });
    expect(blocked).toEqual([]);
  });

  test("keeps working on a page with hostile CSS, and on a 360 px phone", async () => {
    const bot = await createBot("Sturdy bot", { title: "Sturdy", color: "#059669" });
    const page = await (await context({ viewport: { width: 1024, height: 700 } })).newPage();
    await page.goto(site.page("hostile", bot.widget_key));
    const launcher = page.getByRole("button", { name: "Open chat" });
    await launcher.waitFor({ state: "visible", timeout: UI_WAIT_MS });
    const box = (await launcher.boundingBox())!;
    expect(box.width).toBe(56);
    expect(box.x + box.width).toBeLessThanOrEqual(1024);
    await launcher.click();
    const input = page.getByRole("textbox", { name: "Message" });
    await input.waitFor({ state: "visible", timeout: UI_WAIT_MS });
    const panel = (await page.getByRole("dialog").boundingBox())!;
    expect(panel.width).toBeGreaterThan(300);
    expect(await input.evaluate((el) => getComputedStyle(el).fontSize)).toBe("14px");
    await input.fill("Sent from a hostile page");
    await page.getByRole("button", { name: "Send" }).click();
    await page.locator(".msg.in[data-id]", { hasText: "Sent from a hostile page" }).waitFor({ timeout: UI_WAIT_MS });
    await screenshot(page, "widget-hostile-css");

    const phone = await (await context({ viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true })).newPage();
    await phone.goto(site.page("host", bot.widget_key));
    await phone.getByRole("button", { name: "Open chat" }).click();
    const phoneInput = phone.getByRole("textbox", { name: "Message" });
    await phoneInput.waitFor({ state: "visible", timeout: UI_WAIT_MS });
    const phonePanel = (await phone.getByRole("dialog").boundingBox())!;
    expect(phonePanel.x).toBeGreaterThanOrEqual(0);
    expect(phonePanel.x + phonePanel.width).toBeLessThanOrEqual(360);
    await phoneInput.fill("Hello from a phone");
    await phone.getByRole("button", { name: "Send" }).tap();
    await phone.locator(".msg.in[data-id]", { hasText: "Hello from a phone" }).waitFor({ timeout: UI_WAIT_MS });
    const sendBox = (await phone.getByRole("button", { name: "Send" }).boundingBox())!;
    expect(sendBox.x + sendBox.width).toBeLessThanOrEqual(360);
    await screenshot(phone, "widget-360px");
    // The close button is reachable when the panel covers the screen.
    await phone.getByRole("button", { name: "Close chat" }).tap();
    await expect(phone.getByRole("dialog").count()).resolves.toBe(0);
    expect(blocked).toEqual([]);
  });
});
