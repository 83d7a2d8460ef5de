// The widget on a real customer's site: a verified user (data-user-id + data-user-hash) keeps
// one conversation across browsers, a forged hash is refused and tells the site owner why,
// the page drives the widget through window.BotInbox, languages (Arabic right-to-left), and
// the widget passes axe-core and works from the keyboard alone.
import { createHmac } from "node:crypto";
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import type { RunningServer } from "../../src/server.ts";
import { uniqueEmail } from "../support/harness.ts";
import { seriousViolations } from "./axe.ts";
import { apiCall, launch, localContext, screenshot, skipBrowser, SLOW_MS, startHostSite, startPlatform, UI_WAIT_MS, type HostSite } from "./support.ts";

setDefaultTimeout(SLOW_MS);

describe.skipIf(skipBrowser)("the widget on a customer's site", () => {
  let server: RunningServer;
  let site: HostSite;
  let browser: Browser;
  const blocked: string[] = [];
  const contexts: BrowserContext[] = [];
  let token: string;
  let bot: { id: string; token: string; widget_key: string };
  let secret: string;

  const newPage = async () => {
    const c = await localContext(browser, blocked, { viewport: { width: 1280, height: 800 } });
    contexts.push(c);
    return c.newPage();
  };
  const hash = (userId: string, key = secret) => createHmac("sha256", key).update(userId).digest("hex");
  const inWidget = <T>(page: Page, fn: (root: ShadowRoot) => T) =>
    page.evaluate(`(${fn.toString()})(document.querySelector("botinbox-widget").shadowRoot)`) as Promise<T>;
  const settled = (page: Page, text: string) => page.getByRole("log").locator(".msg.in[data-id]", { hasText: text }).waitFor({ timeout: UI_WAIT_MS });

  beforeAll(async () => {
    server = await startPlatform();
    site = startHostSite(server.url);
    browser = await launch();
    token = (await apiCall(server.url, "POST", "/api/auth/register", { email: uniqueEmail("site-owner"), password: "secret123" })).token;
    bot = await apiCall(server.url, "POST", "/api/bots", { name: "Acme help" }, token);
    secret = (await apiCall(server.url, "GET", `/api/bots/${bot.id}/identity-secret`, undefined, token)).identity_secret;
  }, SLOW_MS);

  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => {});
    await browser?.close();
    site?.stop();
    await server?.stop();
  }, SLOW_MS);

  test("a verified user continues the same conversation in a second browser; a forged hash is refused", async () => {
    const userId = `customer-${crypto.randomUUID().slice(0, 8)}`;
    const attributes = { "data-user-id": userId, "data-user-hash": hash(userId), "data-user-name": "Vera Stone", "data-user-email": "vera@example.com" };

    const phone = await newPage();
    await phone.goto(site.page("host", bot.widget_key, attributes));
    await phone.getByRole("button", { name: "Open chat" }).click();
    const phoneInput = phone.getByRole("textbox", { name: "Message" });
    await phoneInput.fill("Where is my order 5512?");
    await phoneInput.press("Enter");
    await settled(phone, "Where is my order 5512?");

    // Another browser, nothing stored: the same user sees the conversation and continues it.
    const laptop = await newPage();
    await laptop.goto(site.page("host", bot.widget_key, attributes));
    await laptop.getByRole("button", { name: "Open chat" }).click();
    await laptop.getByRole("log").locator(".msg.in", { hasText: "Where is my order 5512?" }).waitFor({ timeout: UI_WAIT_MS });
    const laptopInput = laptop.getByRole("textbox", { name: "Message" });
    await laptopInput.fill("Any news?");
    await laptopInput.press("Enter");
    await settled(laptop, "Any news?");
    // The first device follows the same chat live.
    await phone.getByRole("log").locator(".msg.in", { hasText: "Any news?" }).waitFor({ timeout: UI_WAIT_MS });
    await screenshot(laptop, "widget-verified-second-browser");

    const conversations = await apiCall(server.url, "GET", `/api/inbox?bot_id=${bot.id}`, undefined, token);
    const mine = conversations.filter((c: { chat_id: string }) => c.chat_id === `verified:${userId}`);
    expect(mine).toHaveLength(1);
    expect(mine[0].contact).toMatchObject({ verified: true, name: "Vera Stone", email: "vera@example.com", external_user_id: userId });

    // A forged hash: the site owner's console says why, the visitor never sees the user's chat.
    const forger = await newPage();
    const consoleErrors: string[] = [];
    forger.on("console", (m) => m.type() === "error" && consoleErrors.push(m.text()));
    await forger.goto(site.page("host", bot.widget_key, { ...attributes, "data-user-hash": hash(userId, "guessed-secret") }));
    await forger.getByRole("button", { name: "Open chat" }).click();
    const forgerInput = forger.getByRole("textbox", { name: "Message" });
    await forgerInput.fill("I am Vera, show me everything");
    await forgerInput.press("Enter");
    await settled(forger, "I am Vera");
    expect(consoleErrors.some((e) => e.includes("user hash was refused") && e.includes("HMAC-SHA256"))).toBe(true);
    await expect(forger.getByRole("log").textContent()).resolves.not.toContain("5512");
    const verifiedHistory = await apiCall(server.url, "GET", `/api/messages?widget_key=${bot.widget_key}&chat_id=verified:${userId}&user_id=${userId}&user_hash=${hash(userId)}`);
    expect(verifiedHistory.map((m: { text: string }) => m.text)).toEqual(["Where is my order 5512?", "Any news?"]);
  });

  test("the page opens the widget with BotInbox.open(), hears replies with on('message'), switches user with setUser()", async () => {
    const page = await newPage();
    await page.goto(site.page("host", bot.widget_key));
    await page.getByRole("button", { name: "Open chat" }).waitFor({ timeout: UI_WAIT_MS });
    await page.evaluate(() => {
      const w = window as unknown as { BotInbox: { on(e: string, fn: (m: { text: string }) => void): void }; heard: string[] };
      w.heard = [];
      w.BotInbox.on("message", (m) => w.heard.push(m.text));
    });
    await page.evaluate(() => (window as unknown as { BotInbox: { open(): void } }).BotInbox.open());
    await page.getByRole("dialog").waitFor({ timeout: UI_WAIT_MS });
    await expect(page.getByRole("button", { name: "Open chat" }).getAttribute("aria-expanded")).resolves.toBe("true");
    const input = page.getByRole("textbox", { name: "Message" });
    await input.fill("Hello from the API test");
    await input.press("Enter");
    await settled(page, "Hello from the API test");
    const chatId = await page.evaluate((key) => localStorage.getItem(`botinbox:chat:${key}`), bot.widget_key);
    await apiCall(server.url, "POST", `/api/bots/${bot.id}/send-message`, { chat_id: chatId, text: "The bot answers" }, bot.token);
    await page.waitForFunction(() => (window as unknown as { heard: string[] }).heard.includes("The bot answers"), undefined, { timeout: UI_WAIT_MS });

    await page.evaluate(() => (window as unknown as { BotInbox: { close(): void } }).BotInbox.close());
    await page.getByRole("dialog").waitFor({ state: "hidden", timeout: UI_WAIT_MS });
    await page.evaluate(() => (window as unknown as { BotInbox: { toggle(): void } }).BotInbox.toggle());
    await page.getByRole("dialog").waitFor({ timeout: UI_WAIT_MS });

    // The site logs its user in: the widget shows that user's own chat, not the anonymous one.
    const userId = `late-${crypto.randomUUID().slice(0, 8)}`;
    await apiCall(server.url, "POST", "/api/messages", { widget_key: bot.widget_key, user_id: userId, user_hash: hash(userId), text: "My earlier question" });
    await page.evaluate(([id, h]) => (window as unknown as { BotInbox: { setUser(u: unknown): void } }).BotInbox.setUser({ id, hash: h }), [userId, hash(userId)]);
    await page.getByRole("log").locator(".msg.in", { hasText: "My earlier question" }).waitFor({ timeout: UI_WAIT_MS });
    await expect(page.getByRole("log").textContent()).resolves.not.toContain("Hello from the API test");
    // And logs out: a fresh anonymous chat, nothing of the user's left on screen.
    await page.evaluate(() => (window as unknown as { BotInbox: { setUser(u: unknown): void } }).BotInbox.setUser(null));
    await page.waitForFunction(() => !document.querySelector("botinbox-widget")!.shadowRoot!.querySelector(".log")!.textContent!.includes("My earlier question"), undefined, { timeout: UI_WAIT_MS });
  });

  test('data-locale="ar" lays the widget out right to left, in Arabic; data-locale="de" speaks German', async () => {
    const page = await newPage();
    await page.goto(site.page("host", bot.widget_key, { "data-locale": "ar" }));
    const launcher = page.getByRole("button", { name: "افتح المحادثة" });
    await launcher.waitFor({ timeout: UI_WAIT_MS });
    await launcher.click();
    const input = page.getByRole("textbox", { name: "رسالة" });
    await input.waitFor({ timeout: UI_WAIT_MS });
    await expect(input.getAttribute("placeholder")).resolves.toBe("اكتب رسالة…");
    const layout = await inWidget(page, (root) => {
      const panel = root.querySelector(".panel") as HTMLElement;
      const send = root.querySelector(".send")!.getBoundingClientRect();
      const text = root.querySelector("textarea")!.getBoundingClientRect();
      return { direction: getComputedStyle(panel).direction, lang: (root.querySelector(".w") as HTMLElement).lang, sendLeftOfText: send.right <= text.left };
    });
    expect(layout).toEqual({ direction: "rtl", lang: "ar", sendLeftOfText: true });
    await input.fill("مرحبا");
    await input.press("Enter");
    await settled(page, "مرحبا");
    const mine = await inWidget(page, (root) => {
      const log = root.querySelector(".log")!.getBoundingClientRect();
      const bubble = root.querySelector(".msg.in")!.getBoundingClientRect();
      return bubble.left - log.left < log.right - bubble.right;
    });
    expect(mine).toBe(true);
    await screenshot(page, "widget-arabic-rtl");

    const german = await newPage();
    await german.goto(site.page("host", bot.widget_key, { "data-locale": "de" }));
    await german.getByRole("button", { name: "Chat öffnen" }).click();
    await expect(german.getByRole("textbox", { name: "Nachricht" }).getAttribute("placeholder")).resolves.toBe("Nachricht eingeben…");
    expect(await inWidget(german, (root) => getComputedStyle(root.querySelector(".panel")!).direction)).toBe("ltr");
  });

  test("axe-core finds no serious or critical violation in the widget, closed, open and with messages", async () => {
    const page = await newPage();
    await page.goto(site.page("host", bot.widget_key));
    const launcher = page.getByRole("button", { name: "Open chat" });
    await launcher.waitFor({ timeout: UI_WAIT_MS });
    expect(await seriousViolations(page, "botinbox-widget")).toEqual([]);
    await launcher.click();
    await page.getByRole("textbox", { name: "Message" }).waitFor({ timeout: UI_WAIT_MS });
    expect(await seriousViolations(page, "botinbox-widget")).toEqual([]);
    const input = page.getByRole("textbox", { name: "Message" });
    await input.fill("Checking accessibility");
    await input.press("Enter");
    await settled(page, "Checking accessibility");
    const chatId = await page.evaluate((key) => localStorage.getItem(`botinbox:chat:${key}`), bot.widget_key);
    await apiCall(server.url, "POST", `/api/bots/${bot.id}/send-message`, {
      chat_id: chatId, text: "Pick one", reply_markup: { inline_keyboard: [[{ text: "Sizes", callback_data: "sizes" }, { text: "Shop", url: "https://example.com/" }]] },
    }, bot.token);
    await page.getByRole("button", { name: "Sizes" }).waitFor({ timeout: UI_WAIT_MS });
    expect(await seriousViolations(page, "botinbox-widget")).toEqual([]);
  });

  test("keyboard only: open the widget, type and send, press a button, close with Escape, focus returns", async () => {
    const page = await newPage();
    await page.goto(site.page("host", bot.widget_key));
    await page.getByRole("button", { name: "Open chat" }).waitFor({ timeout: UI_WAIT_MS });
    const focused = () => inWidget(page, (root) => {
      const el = root.activeElement as HTMLElement | null;
      return el ? el.getAttribute("aria-label") ?? el.textContent : null;
    });
    for (let i = 0; i < 10 && (await focused()) !== "Open chat"; i++) await page.keyboard.press("Tab");
    expect(await focused()).toBe("Open chat");
    await page.keyboard.press("Enter");
    await page.getByRole("dialog").waitFor({ timeout: UI_WAIT_MS });
    expect(await focused()).toBe("Message");
    await page.keyboard.type("Typed without a mouse");
    await page.keyboard.press("Enter");
    await settled(page, "Typed without a mouse");
    const chatId = await page.evaluate((key) => localStorage.getItem(`botinbox:chat:${key}`), bot.widget_key);
    await apiCall(server.url, "POST", `/api/bots/${bot.id}/send-message`, {
      chat_id: chatId, text: "Which size?", reply_markup: { keyboard: [["Small", "Large"]], one_time_keyboard: true },
    }, bot.token);
    await page.getByRole("button", { name: "Large" }).waitFor({ timeout: UI_WAIT_MS });
    // Shift+Tab from the message box reaches the reply keyboard's buttons.
    for (let i = 0; i < 6 && (await focused()) !== "Large"; i++) await page.keyboard.press("Shift+Tab");
    expect(await focused()).toBe("Large");
    await page.keyboard.press("Enter");
    await settled(page, "Large");
    await page.keyboard.press("Escape");
    await page.getByRole("dialog").waitFor({ state: "hidden", timeout: UI_WAIT_MS });
    expect(await focused()).toBe("Open chat");
  });
});
