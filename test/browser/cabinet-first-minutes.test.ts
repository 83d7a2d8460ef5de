// What a new user trips over in the cabinet, in a real Chromium: long unbreakable content
// on a phone (nothing past the right edge, no sideways scroll), text contrast on every page,
// toasts away from the Send button, replying takes the conversation over, the bot id and
// the first-run checklist on the bot card.
import { afterAll, afterEach, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { Browser, BrowserContext, BrowserContextOptions, Page } from "playwright-core";
import type { RunningServer } from "../../src/server.ts";
import { measureContrast, MIN_CONTRAST } from "./contrast.ts";
import { apiCall, launch, localContext, screenshot, skipBrowser, SLOW_MS, startPlatform, UI_WAIT_MS } from "./support.ts";

setDefaultTimeout(SLOW_MS);

const PHONE: BrowserContextOptions = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true };
const DESKTOP: BrowserContextOptions = { viewport: { width: 1366, height: 900 } };
const LONG = "x".repeat(60);

describe.skipIf(skipBrowser)("the cabinet's first ten minutes", () => {
  let server: RunningServer;
  let browser: Browser;
  const blocked: string[] = [];
  const contexts: BrowserContext[] = [];
  const failures: string[] = [];
  const owner = { email: `${"anna.maria.berg.lindqvist".repeat(3)}.${crypto.randomUUID().slice(0, 8)}@example-company-with-a-long-name.com`, token: "" };
  let bot: any;
  let longChat: any;

  const visitorWrites = (chatId: string, text: string, user: Record<string, string>, botId = bot.id) =>
    apiCall(server.url, "POST", "/api/messages", { bot_id: botId, chat_id: chatId, channel: "widget", text, user });

  beforeAll(async () => {
    server = await startPlatform();
    browser = await launch();
    owner.token = (await apiCall(server.url, "POST", "/api/auth/register", { email: owner.email, password: "secret123" })).token;
    bot = await apiCall(server.url, "POST", "/api/bots", { name: `Support${"x".repeat(50)}` }, owner.token);
    await visitorWrites(`chat-${LONG}`, `Hello ${"supercalifragilistic".repeat(6)} https://shop.example.com/${LONG}/${LONG}`, { first_name: `Bartholomew${LONG}` });
    await visitorWrites("plain", "A short question", { first_name: "Ada" });
    const list = await apiCall(server.url, "GET", `/api/inbox?bot_id=${bot.id}`, undefined, owner.token);
    longChat = list.find((c: any) => c.chat_id.startsWith("chat-x"));
    // Taking over assigns it to the owner: the row shows the long e-mail address.
    await apiCall(server.url, "POST", `/api/inbox/${longChat.id}/takeover`, undefined, owner.token);
    // An operator's and a bot's bubble, whose times sit on colour.
    await apiCall(server.url, "POST", `/api/inbox/${longChat.id}`, { text: `On it: ${"unbreakable".repeat(8)}` }, owner.token);
    await apiCall(server.url, "POST", `/bot${bot.token}/sendMessage`, { chat_id: longChat.chat_id, text: "An automatic answer" });
  }, SLOW_MS);

  afterEach(async () => {
    for (const context of contexts.splice(0)) await context.close().catch(() => {});
    expect(failures.splice(0)).toEqual([]);
    expect(blocked).toEqual([]);
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  }, SLOW_MS);

  async function cabinet(options: BrowserContextOptions, hash: string): Promise<Page> {
    const context = await localContext(browser, blocked, options);
    contexts.push(context);
    await context.addInitScript(([token, email]) => {
      localStorage.setItem("botinbox:token", token!);
      localStorage.setItem("botinbox:email", email!);
    }, [owner.token, owner.email]);
    const page = await context.newPage();
    page.on("pageerror", (err) => failures.push(`page error: ${err.message}`));
    await page.goto(`${server.url}/${hash}`);
    return page;
  }

  /** Visible elements whose right edge is past the viewport's, and the page's scroll width. */
  const overflow = (page: Page) => page.evaluate(() => {
    const past: string[] = [];
    for (const el of document.body.querySelectorAll("*")) {
      const box = el.getBoundingClientRect();
      if (box.width === 0 || box.height === 0 || !el.checkVisibility({ visibilityProperty: true })) continue;
      if (box.right > innerWidth + 0.5) past.push(`${el.tagName.toLowerCase()}.${el.className}: ${Math.round(box.right)}`);
    }
    // Text can run out of its box without widening it: measure the text itself, unless it
    // ends in an ellipsis where its box clips it.
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const parent = node.parentElement!;
      if (!node.textContent!.trim() || !parent.checkVisibility({ visibilityProperty: true }) || parent.closest("option, .sr")) continue;
      if (getComputedStyle(parent).textOverflow === "ellipsis") continue;
      const range = document.createRange();
      range.selectNodeContents(node);
      const right = Math.max(0, ...[...range.getClientRects()].map((r) => r.right));
      if (right > innerWidth + 0.5) past.push(`text "${node.textContent!.slice(0, 30)}": ${Math.round(right)}`);
    }
    return { scrollWidth: document.documentElement.scrollWidth, innerWidth, past };
  });

  const lowContrast = async (page: Page, atLeast: number) => {
    const measured = await page.evaluate(measureContrast, null);
    expect(measured.length).toBeGreaterThanOrEqual(atLeast);
    return measured.filter((r) => r.ratio < MIN_CONTRAST);
  };

  /** The page fits the phone's width and every text reads. */
  async function fitsAndReads(page: Page, name: string) {
    await screenshot(page, name);
    const fit = await overflow(page);
    expect(fit.past).toEqual([]);
    expect(fit.scrollWidth).toBeLessThanOrEqual(fit.innerWidth);
    expect(await lowContrast(page, 5)).toEqual([]);
  }

  test("390×844 with long names, addresses and words: nothing past the right edge, contrast ≥ 4.5:1", async () => {
    const page = await cabinet(PHONE, "#/inbox");
    await page.locator(".conv", { hasText: "Bartholomew" }).locator(".assignee").waitFor({ timeout: UI_WAIT_MS });
    await fitsAndReads(page, "first-minutes-inbox-390");

    await page.locator(".conv", { hasText: "Bartholomew" }).tap();
    await page.locator(".bubble.bot", { hasText: "An automatic answer" }).waitFor({ timeout: UI_WAIT_MS });
    await fitsAndReads(page, "first-minutes-conversation-390");
    await page.getByRole("button", { name: "Details" }).tap();
    await page.locator(".conv-side").waitFor({ timeout: UI_WAIT_MS });
    await fitsAndReads(page, "first-minutes-details-390");

    await page.goto(`${server.url}/#/bots/${bot.id}`);
    await page.locator(".checklist").waitFor({ timeout: UI_WAIT_MS });
    await fitsAndReads(page, "first-minutes-botcard-390");
    await page.locator("#team-title").scrollIntoViewIfNeeded();
    await fitsAndReads(page, "first-minutes-team-390");
    await page.goto(`${server.url}/#/bots`);
    await page.locator(".bot-item").first().waitFor({ timeout: UI_WAIT_MS });
    await fitsAndReads(page, "first-minutes-bots-390");
    await page.goto(`${server.url}/#/account`);
    await page.locator("h1").first().waitFor({ timeout: UI_WAIT_MS });
    await fitsAndReads(page, "first-minutes-account-390");
  });

  test("1366×900: contrast ≥ 4.5:1 on every page, and a favicon", async () => {
    const page = await cabinet(DESKTOP, `#/inbox/${longChat.id}`);
    await page.locator(".bubble.bot", { hasText: "An automatic answer" }).waitFor({ timeout: UI_WAIT_MS });
    const icon = await page.locator('link[rel="icon"]').getAttribute("href");
    expect(icon).toStartWith("data:image/svg+xml");
    // It draws: the tab shows it, not the browser's blank page.
    expect(await page.evaluate(async (href) => {
      const img = new Image();
      img.src = href;
      await img.decode();
      return img.naturalWidth;
    }, icon!)).toBeGreaterThan(0);
    expect(await lowContrast(page, 10)).toEqual([]);
    for (const [hash, ready] of [[`#/bots/${bot.id}`, ".checklist"], ["#/bots", ".bot-item"], ["#/account", "h1"]] as const) {
      await page.goto(`${server.url}/${hash}`);
      await page.locator(ready).first().waitFor({ timeout: UI_WAIT_MS });
      expect({ hash, low: await lowContrast(page, 5) }).toEqual({ hash, low: [] });
    }
    // Logged out: the sign-in page.
    await page.evaluate(() => localStorage.clear());
    const fresh = await (await localContext(browser, blocked)).newPage();
    contexts.push(fresh.context());
    await fresh.goto(`${server.url}/#/login`);
    await fresh.locator("form").first().waitFor({ timeout: UI_WAIT_MS });
    expect(await lowContrast(fresh, 3)).toEqual([]);
  });

  test("a toast shown while the reply box is visible does not cover Send", async () => {
    for (const [options, name] of [[PHONE, "390"], [DESKTOP, "1366"]] as const) {
      const page = await cabinet(options, `#/inbox/${longChat.id}`);
      const send = page.getByRole("button", { name: "Send" });
      await send.waitFor({ timeout: UI_WAIT_MS });
      await page.getByRole("button", { name: "Give back to bot" }).click();
      const toast = page.locator(".toast").first();
      await toast.waitFor({ timeout: UI_WAIT_MS });
      await screenshot(page, `first-minutes-toast-${name}`);
      const [a, b] = [(await toast.boundingBox())!, (await send.boundingBox())!];
      const intersects = a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
      expect(intersects).toBe(false);
      await page.getByRole("button", { name: "Take over" }).click();
      await page.getByRole("button", { name: "Give back to bot" }).waitFor({ timeout: UI_WAIT_MS });
    }
  });

  test("replying to a conversation the bot handles takes it over", async () => {
    await visitorWrites("bot-handled", "Is the bot there?", { first_name: "Cyril" });
    const list = await apiCall(server.url, "GET", `/api/inbox?bot_id=${bot.id}`, undefined, owner.token);
    const chat = list.find((c: any) => c.chat_id === "bot-handled");
    expect(chat.handled_by).toBe("bot");
    const page = await cabinet(DESKTOP, `#/inbox/${chat.id}`);
    await page.getByText("Handled by the bot").waitFor({ timeout: UI_WAIT_MS });
    await page.getByRole("textbox", { name: "Reply" }).fill("A person here");
    await page.getByRole("button", { name: "Send" }).click();
    await page.locator(".bubble", { hasText: "A person here" }).waitFor({ timeout: UI_WAIT_MS });
    await page.getByText("Taken over by an operator").waitFor({ timeout: UI_WAIT_MS });
    await expect(page.getByText("Handled by the bot").count()).resolves.toBe(0);
    const after = await apiCall(server.url, "GET", `/api/inbox/${chat.id}`, undefined, owner.token);
    expect(after.handled_by).toBe("human");
  });

  test("the bot card: the bot id with a copy button, and a checklist that ticks from the server's data", async () => {
    const fresh = await apiCall(server.url, "POST", "/api/bots", { name: "Fresh bot" }, owner.token);
    const page = await cabinet(DESKTOP, `#/bots/${fresh.id}`);
    const keys = page.getByRole("region", { name: "Keys" });
    await keys.getByText(fresh.id, { exact: true }).waitFor({ timeout: UI_WAIT_MS });
    await keys.getByRole("button", { name: "Copy bot id" }).click();
    await page.getByText("Copied to the clipboard").waitFor({ timeout: UI_WAIT_MS });
    const checklist = page.getByRole("region", { name: /Getting started/ });
    const steps = () => checklist.getByRole("listitem").evaluateAll((items) => items.map((i) => i.getAttribute("aria-label")));
    await checklist.getByText("0 of 4 done").waitFor({ timeout: UI_WAIT_MS });
    expect(await steps()).toEqual(["Embed the widget: to do", "Send a test message: to do", "Answer it: to do", "Connect a bot: to do"]);

    await visitorWrites("first-visitor", "Testing the widget", { first_name: "Dora" }, fresh.id);
    await page.reload();
    await checklist.getByText("2 of 4 done").waitFor({ timeout: UI_WAIT_MS });
    expect(await steps()).toEqual(["Embed the widget: done", "Send a test message: done", "Answer it: to do", "Connect a bot: to do"]);

    const [chat] = await apiCall(server.url, "GET", `/api/inbox?bot_id=${fresh.id}`, undefined, owner.token);
    await apiCall(server.url, "POST", `/api/inbox/${chat.id}`, { text: "Hello Dora" }, owner.token);
    // The visitor writes again, so the last message is not the answer.
    await visitorWrites("first-visitor", "Thanks", { first_name: "Dora" }, fresh.id);
    const [withToken] = (await apiCall(server.url, "GET", "/api/bots", undefined, owner.token)).filter((b: any) => b.id === fresh.id);
    await apiCall(server.url, "POST", `/bot${withToken.token}/setWebhook`, { url: "https://bot.example.com/hook" });
    await page.reload();
    await checklist.getByText("4 of 4 done").waitFor({ timeout: UI_WAIT_MS });
    expect(await steps()).toEqual(["Embed the widget: done", "Send a test message: done", "Answer it: done", "Connect a bot: done"]);
    await screenshot(page, "first-minutes-checklist");
  });

  test("channels say what they are for, and none opens a raw JSON box", async () => {
    const page = await cabinet(DESKTOP, `#/bots/${bot.id}`);
    const channels = page.locator(".channel");
    await channels.first().waitFor({ timeout: UI_WAIT_MS });
    const purposes = await page.locator(".channel-purpose").allTextContents();
    expect(purposes.length).toBe(8);
    expect(new Set(purposes).size).toBe(8);
    for (const [i, label] of (await page.locator(".channel-name strong").allTextContents()).entries()) {
      await channels.nth(i).getByRole("button", { name: "Configure" }).click();
      const editor = channels.nth(i).locator(".channel-config");
      await editor.locator("form").first().waitFor({ timeout: UI_WAIT_MS });
      expect({ label, json: await editor.getByText("JSON").count() }).toEqual({ label, json: 0 });
      expect({ label, raw: await editor.locator("textarea.mono").count() }).toEqual({ label, raw: 0 });
    }
    await screenshot(page, "first-minutes-channels", true);
  });
});
