// Nothing a bot or a visitor sends runs script in the widget or the
// cabinet: text with entities (javascript: text links, a hostile pre language), HTML
// parse_mode links, url buttons with javascript: URLs, button labels and answers with markup.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import type { RunningServer } from "../../src/server.ts";
import { uniqueEmail } from "../support/harness.ts";
import { apiCall, launch, localContext, screenshot, skipBrowser, SLOW_MS, startHostSite, startPlatform, UI_WAIT_MS, type HostSite } from "./support.ts";

setDefaultTimeout(SLOW_MS);

const IMG = (n: number) => `<img src=x onerror="window.__xss=${n}">`;
const TEXT = `Click me ${IMG(1)} https://ok.example`;

/** What may never appear: script, event-handler attributes, images, links that are not http(s)/tg/mailto. */
function hostileNodes(root: Document | ShadowRoot): string[] {
  const found: string[] = [];
  for (const el of root.querySelectorAll("*")) {
    if (["SCRIPT", "IMG", "IFRAME", "OBJECT", "EMBED"].includes(el.tagName)) found.push(el.tagName);
    for (const attr of el.getAttributeNames()) if (attr.startsWith("on")) found.push(`${el.tagName}[${attr}]`);
    const href = el.getAttribute("href");
    if (href !== null && !/^(https?:|tg:|mailto:|#)/i.test(href)) found.push(`${el.tagName}[href=${href}]`);
  }
  return found;
}

describe.skipIf(skipBrowser)("hostile bot and visitor content in a real browser", () => {
  let server: RunningServer;
  let site: HostSite;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  const blocked: string[] = [];

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

  const page = async () => {
    const context = await localContext(browser, blocked, { viewport: { width: 1280, height: 800 } });
    contexts.push(context);
    return context.newPage();
  };
  const xss = (p: Page) => p.evaluate(() => (window as unknown as { __xss?: number }).__xss ?? null);

  test("formatted text, buttons and answers never execute in the widget or the cabinet", async () => {
    const email = uniqueEmail("xss");
    const { token } = await apiCall(server.url, "POST", "/api/auth/register", { email, password: "secret123" });
    const bot = await apiCall(server.url, "POST", "/api/bots", { name: "Hostile bot" }, token);
    await apiCall(server.url, "PATCH", `/api/bots/${bot.id}/channels`, { channel_type: "widget", config: { allowed_origins: [site.origin] } }, token);
    const call = (op: string, body: unknown) => apiCall(server.url, "POST", `/api/bots/${bot.id}/${op}`, body, bot.token);

    const visitor = await page();
    await visitor.goto(site.page("host", bot.widget_key));
    await visitor.getByRole("button", { name: "Open chat" }).click();
    const input = visitor.getByRole("textbox", { name: "Message" });
    await input.fill(`Hi ${IMG(2)}`);
    await input.press("Enter");
    let chat = "";
    for (let i = 0; i < 100 && !chat; i++) {
      chat = (await apiCall(server.url, "GET", `/api/inbox?bot_id=${bot.id}`, undefined, token))[0]?.chat_id ?? "";
      if (!chat) await Bun.sleep(100);
    }

    await call("send-message", {
      chat_id: chat, text: TEXT,
      entities: [
        { type: "text_link", offset: 0, length: 8, url: "javascript:window.__xss=3" },
        { type: "pre", offset: 9, length: IMG(1).length, language: `"><script>window.__xss=4</script>` },
        { type: "url", offset: TEXT.indexOf("https:"), length: "https://ok.example".length },
        { type: "bold", offset: 0, length: 5 },
      ],
      reply_markup: {
        inline_keyboard: [
          [{ text: IMG(5), url: "javascript:window.__xss=6" }, { text: "data", url: "data:text/html,<script>window.__xss=7</script>" }],
          [{ text: `<svg onload="window.__xss=8">press`, callback_data: "press" }],
        ],
      },
    });
    await call("send-message", { chat_id: chat, text: `<a href="javascript:window.__xss=9">html link</a> <b>&lt;img src=x onerror=window.__xss=10&gt;</b>`, parse_mode: "HTML" });
    await call("send-message", { chat_id: chat, text: "[md link](javascript:window.__xss=11)", parse_mode: "MarkdownV2" });
    await call("send-message", { chat_id: chat, text: "Reply", reply_markup: { keyboard: [[IMG(12)]] } });

    const log = visitor.getByRole("log");
    await log.locator(".msg.out", { hasText: "md link" }).waitFor({ timeout: UI_WAIT_MS });
    // Labels and markup show as text; unsafe links are plain text, unsafe url buttons are disabled.
    await log.getByRole("button", { name: IMG(5) }).waitFor({ timeout: UI_WAIT_MS });
    await expect(log.getByRole("button", { name: IMG(5) }).isDisabled()).resolves.toBe(true);
    await expect(log.getByRole("link", { name: "https://ok.example" }).getAttribute("href")).resolves.toBe("https://ok.example/");
    await expect(log.getByRole("link").count()).resolves.toBe(1);
    await log.getByText("Click me", { exact: false }).first().click();
    await log.getByText("html link").click();
    await log.getByText("md link").click();
    await log.getByRole("button", { name: `<svg onload="window.__xss=8">press` }).click();

    // The bot answers the press with markup in the text: shown as text.
    let query: { id: string } | undefined;
    for (let i = 0; i < 100 && !query; i++) {
      const updates = await apiCall(server.url, "GET", `/api/bots/${bot.id}/get-updates?timeout=0`, undefined, bot.token);
      query = updates.find((u: any) => u.callback_query)?.callback_query;
      if (!query) await Bun.sleep(100);
    }
    await call("answer-callback-query", { callback_query_id: query!.id, text: IMG(13) });
    await visitor.getByRole("status").filter({ hasText: IMG(13) }).waitFor({ timeout: UI_WAIT_MS });
    await visitor.getByRole("group", { name: "Reply keyboard" }).getByRole("button", { name: IMG(12) }).click();
    await log.locator(".msg.in", { hasText: IMG(12) }).waitFor({ timeout: UI_WAIT_MS });
    await screenshot(visitor, "xss-widget");

    expect(await xss(visitor)).toBeNull();
    expect(await visitor.locator("botinbox-widget").evaluate((host, check) => new Function("root", `return (${check})(root)`)(host.shadowRoot), hostileNodes.toString())).toEqual([]);
    expect(visitor.url()).toStartWith(site.origin);

    // The cabinet shows the same conversation, just as inert.
    const operator = await page();
    await operator.goto(`${server.url}/#/login`);
    await operator.getByLabel("E-mail").fill(email);
    await operator.getByLabel("Password").fill("secret123");
    await operator.getByRole("button", { name: "Log in" }).click();
    await operator.getByRole("heading", { name: "Inbox" }).waitFor({ timeout: UI_WAIT_MS });
    const [conversation] = await apiCall(server.url, "GET", `/api/inbox?bot_id=${bot.id}`, undefined, token);
    await operator.goto(`${server.url}/#/inbox/${conversation.id}`);
    const messages = operator.locator(".messages");
    await messages.locator(".bubble", { hasText: "md link" }).waitFor({ timeout: UI_WAIT_MS });
    await messages.getByText("html link").click();
    await messages.getByText("Click me", { exact: false }).first().click();
    await screenshot(operator, "xss-cabinet");
    expect(await xss(operator)).toBeNull();
    expect(await messages.evaluate((el, check) => new Function("root", `return (${check})(root)`)(el), hostileNodes.toString())).toEqual([]);
    expect(operator.url()).toStartWith(server.url);
    expect(blocked).toEqual([]);
  });
});
