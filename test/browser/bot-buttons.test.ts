// Each Telegram library the project runs (grammY, Telegraf,
// node-telegram-bot-api), unchanged but for its API root, sends formatted text and an
// inline keyboard; a visitor presses the button in the widget (real Chromium); the bot's
// callback handler answers with a toast text and edits the keyboard, which the widget shows
// live; the HTML and MarkdownV2 replies render formatted in the widget and in the inbox.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { Bot as Grammy } from "grammy";
import { Telegraf } from "telegraf";
import { Bot as Ntba } from "node-telegram-bot-api";
import type { Browser, BrowserContext, Page } from "playwright-core";
import type { RunningServer } from "../../src/server.ts";
import { uniqueEmail } from "../support/harness.ts";
import {
  apiCall, launch, localContext, screenshot, skipBrowser, SLOW_MS, startHostSite, startPlatform, UI_WAIT_MS, type HostSite,
} from "./support.ts";

setDefaultTimeout(SLOW_MS);

const MENU_HTML = "<b>Menu</b> for <i>you</i>: <a href=\"https://example.com/prices\">prices</a>";
const MARKDOWN = "*Bold* and `code` and ||secret||";
const KEYBOARD = { inline_keyboard: [[{ text: "Pricing", callback_data: "pricing" }, { text: "Docs", url: "https://example.com/docs" }]] };
const EDITED = { inline_keyboard: [[{ text: "✓ Pricing sent", callback_data: "done" }]] };
const ANSWER = "Prices are on the way";

interface Running {
  stop(): Promise<void>;
}

/** The same little bot in each library: /start → two formatted replies and a keyboard; a press → answer + new keyboard. */
const LIBRARIES: Record<string, (token: string, apiRoot: string) => Promise<Running>> = {
  async grammY(token, apiRoot) {
    const bot = new Grammy(token, { client: { apiRoot } });
    bot.command("start", async (ctx) => {
      await ctx.reply(MENU_HTML, { parse_mode: "HTML", reply_markup: KEYBOARD });
      await ctx.reply(MARKDOWN, { parse_mode: "MarkdownV2" });
    });
    bot.on("callback_query:data", async (ctx) => {
      await ctx.answerCallbackQuery({ text: ANSWER });
      await ctx.editMessageReplyMarkup({ reply_markup: EDITED });
    });
    let started!: () => void;
    const ready = new Promise<void>((resolve) => (started = resolve));
    const polling = bot.start({ onStart: () => started() });
    await ready;
    return { stop: async () => (await bot.stop(), await polling) };
  },
  async Telegraf(token, apiRoot) {
    const bot = new Telegraf(token, { telegram: { apiRoot } });
    bot.start(async (ctx) => {
      await ctx.reply(MENU_HTML, { parse_mode: "HTML", reply_markup: KEYBOARD });
      await ctx.reply(MARKDOWN, { parse_mode: "MarkdownV2" });
    });
    bot.on("callback_query", async (ctx) => {
      await ctx.answerCbQuery(ANSWER);
      await ctx.editMessageReplyMarkup(EDITED);
    });
    let launched!: () => void;
    const ready = new Promise<void>((resolve) => (launched = resolve));
    const polling = bot.launch(() => launched()).catch(() => undefined);
    await ready;
    return { stop: async () => (bot.stop("test over"), await polling) };
  },
  async "node-telegram-bot-api"(token, apiRoot) {
    const bot = new Ntba(token, { apiRoot });
    bot.command("start", async (ctx) => {
      await ctx.reply(MENU_HTML, { parse_mode: "HTML", reply_markup: KEYBOARD });
      await ctx.reply(MARKDOWN, { parse_mode: "MarkdownV2" });
    });
    bot.on("callback_query", async (ctx) => {
      await ctx.answerCallbackQuery({ text: ANSWER });
      const message = ctx.callbackQuery!.message!;
      await ctx.api.editMessageReplyMarkup({ chat_id: message.chat.id, message_id: message.message_id, reply_markup: EDITED });
    });
    const polling = bot.startPolling(undefined, { timeout: 30 });
    return { stop: async () => (bot.stop(), await polling) };
  },
};

describe.skipIf(skipBrowser)("bots with buttons and formatting in a real browser", () => {
  let server: RunningServer;
  let site: HostSite;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  const blocked: string[] = [];
  let user: { token: string; email: string };
  let operator: Page;

  const createBot = async (name: string) => {
    const bot = await apiCall(server.url, "POST", "/api/bots", { name }, user.token);
    await apiCall(server.url, "PATCH", `/api/bots/${bot.id}/channels`, { channel_type: "widget", config: { title: name, allowed_origins: [site.origin] } }, user.token);
    return bot;
  };

  const openWidget = async (widgetKey: string, viewport = { width: 1280, height: 800 }) => {
    const context = await localContext(browser, blocked, { viewport });
    contexts.push(context);
    const page = await context.newPage();
    await page.goto(site.page("host", widgetKey));
    await page.getByRole("button", { name: "Open chat" }).click();
    return page;
  };

  const send = async (page: Page, text: string) => {
    const input = page.getByRole("textbox", { name: "Message" });
    await input.fill(text);
    await input.press("Enter");
  };

  beforeAll(async () => {
    server = await startPlatform();
    site = startHostSite(server.url);
    browser = await launch();
    const email = uniqueEmail("buttons");
    const registered = await apiCall(server.url, "POST", "/api/auth/register", { email, password: "secret123" });
    user = { token: registered.token, email };
    const context = await localContext(browser, blocked, { viewport: { width: 1280, height: 800 } });
    contexts.push(context);
    operator = await context.newPage();
    await operator.goto(`${server.url}/#/login`);
    await operator.getByLabel("E-mail").fill(email);
    await operator.getByLabel("Password").fill("secret123");
    await operator.getByRole("button", { name: "Log in" }).click();
    await operator.getByRole("heading", { name: "Inbox" }).waitFor({ timeout: UI_WAIT_MS });
  }, SLOW_MS);

  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => {});
    await browser?.close();
    site?.stop();
    await server?.stop();
  }, SLOW_MS);

  for (const [library, start] of Object.entries(LIBRARIES)) {
    test(`${library}: formatted replies, an inline keyboard pressed in the widget, the answer toast and the edited keyboard`, async () => {
      const created = await createBot(`${library} shop`);
      const bot = await start(created.token, server.url);
      try {
        const page = await openWidget(created.widget_key);
        await send(page, "/start");
        const log = page.getByRole("log");

        // HTML: bold, italic and a link (http only) inside the bubble, not the markup as text.
        const menu = log.locator(".msg.out", { hasText: "Menu for you" });
        await menu.waitFor({ timeout: UI_WAIT_MS });
        await expect(menu.locator("b").textContent()).resolves.toBe("Menu");
        await expect(menu.locator("i").textContent()).resolves.toBe("you");
        await expect(menu.locator("a", { hasText: "prices" }).getAttribute("href")).resolves.toBe("https://example.com/prices");
        expect(await menu.textContent()).not.toContain("<b>");
        // MarkdownV2: bold, code and a spoiler.
        const markdown = log.locator(".msg.out", { hasText: "Bold and code and secret" });
        await markdown.waitFor({ timeout: UI_WAIT_MS });
        await expect(markdown.locator("b").textContent()).resolves.toBe("Bold");
        await expect(markdown.locator("code").textContent()).resolves.toBe("code");
        await expect(markdown.getByRole("button", { name: "Spoiler: show" }).count()).resolves.toBe(1);

        // The keyboard: a real button and a link button, by their names.
        await expect(menu.getByRole("link", { name: "Docs" }).getAttribute("href")).resolves.toBe("https://example.com/docs");
        await menu.getByRole("button", { name: "Pricing" }).click();
        await page.getByRole("status").filter({ hasText: ANSWER }).waitFor({ timeout: UI_WAIT_MS });
        await menu.getByRole("button", { name: "✓ Pricing sent" }).waitFor({ timeout: UI_WAIT_MS });
        await expect(menu.getByRole("button", { name: "Pricing", exact: true }).count()).resolves.toBe(0);
        await screenshot(page, `buttons-${library}-widget`);

        // The inbox renders the same formatting and shows the buttons the visitor saw.
        const [conversation] = await apiCall(server.url, "GET", `/api/inbox?bot_id=${created.id}`, undefined, user.token);
        await operator.goto(`${server.url}/#/inbox/${conversation.id}`);
        const bubble = operator.locator(".messages .bubble.out", { hasText: "Menu for you" });
        await bubble.waitFor({ timeout: UI_WAIT_MS });
        await expect(bubble.locator("b").textContent()).resolves.toBe("Menu");
        await expect(bubble.locator(".buttons").textContent()).resolves.toBe("✓ Pricing sent");
        await expect(operator.locator(".messages .bubble.out code", { hasText: "code" }).count()).resolves.toBe(1);
        await operator.locator(".messages .bubble.in", { hasText: "Pressed the button “Pricing”" }).waitFor({ timeout: UI_WAIT_MS });
        // The widget does not draw the press as a message of the visitor's.
        await expect(log.locator(".msg.in").allTextContents()).resolves.toEqual([expect.stringContaining("/start")]);
        await screenshot(operator, `buttons-${library}-inbox`);
      } finally {
        await bot.stop();
      }
    });
  }

  test("an alert answer, an unanswered press that stops spinning, a reply keyboard, at 360 px", async () => {
    const created = await createBot("Native buttons");
    const page = await openWidget(created.widget_key, { width: 360, height: 740 });
    await send(page, "hello");
    const [conversation] = await (async () => {
      for (let i = 0; i < 100; i++) {
        const list = await apiCall(server.url, "GET", `/api/inbox?bot_id=${created.id}`, undefined, user.token);
        if (list.length) return list;
        await Bun.sleep(100);
      }
      throw new Error("the visitor's message never reached the inbox");
    })();
    const chat = conversation.chat_id;
    const sent = await apiCall(server.url, "POST", `/api/bots/${created.id}/send-message`, {
      chat_id: chat, text: "Choose a plan",
      reply_markup: { inline_keyboard: [[{ text: "Basic plan", callback_data: "basic" }, { text: "Pro plan", callback_data: "pro" }], [{ text: "Ignored", callback_data: "ignored" }]] },
    }, created.token);
    const log = page.getByRole("log");
    const message = log.locator(".msg.out", { hasText: "Choose a plan" });
    await message.waitFor({ timeout: UI_WAIT_MS });

    // An alert: the bot answers the press with show_alert.
    await message.getByRole("button", { name: "Pro plan" }).click();
    const press = async () => {
      for (let i = 0; i < 200; i++) {
        const updates = await apiCall(server.url, "GET", `/api/bots/${created.id}/get-updates?timeout=0`, undefined, created.token);
        const found = updates.find((u: any) => u.callback_query);
        if (found) {
          await apiCall(server.url, "GET", `/api/bots/${created.id}/get-updates?timeout=0&offset=${updates.at(-1).update_id + 1}`, undefined, created.token);
          return found.callback_query;
        }
        await Bun.sleep(100);
      }
      throw new Error("no callback_query reached the bot");
    };
    const query = await press();
    expect(query).toMatchObject({ data: "pro", message: { message_id: sent.message_id } });
    await expect(message.getByRole("button", { name: "Pro plan" }).getAttribute("aria-busy")).resolves.toBe("true");
    await apiCall(server.url, "POST", `/api/bots/${created.id}/answer-callback-query`, { callback_query_id: query.id, text: "Pro costs 20 €/month", show_alert: true }, created.token);
    const alert = page.getByRole("alertdialog");
    await alert.getByText("Pro costs 20 €/month").waitFor({ timeout: UI_WAIT_MS });
    await expect(message.getByRole("button", { name: "Pro plan" }).getAttribute("aria-busy")).resolves.toBeNull();
    await screenshot(page, "buttons-alert-360");
    await alert.getByRole("button", { name: "OK" }).click();

    // A press nobody answers stops spinning on its own.
    const ignored = message.getByRole("button", { name: "Ignored" });
    await ignored.click();
    await page.waitForFunction(() => true);
    await expect(ignored.getAttribute("aria-busy")).resolves.toBe("true");
    await message.locator('button[aria-busy="true"]').waitFor({ state: "detached", timeout: 40_000 });

    // Every button fits the 360 px screen.
    for (const box of await message.locator(".kbb").evaluateAll((els) => els.map((e) => e.getBoundingClientRect().toJSON()))) {
      expect(box.left).toBeGreaterThanOrEqual(0);
      expect(box.right).toBeLessThanOrEqual(360);
    }

    // A reply keyboard: a press sends its label; one_time hides it; remove_keyboard clears it.
    await apiCall(server.url, "POST", `/api/bots/${created.id}/send-message`, {
      chat_id: chat, text: "How did we do?", reply_markup: { keyboard: [["Great", "Bad"]], one_time_keyboard: true },
    }, created.token);
    const replyKeyboard = page.getByRole("group", { name: "Reply keyboard" });
    await replyKeyboard.getByRole("button", { name: "Great" }).click();
    await log.locator(".msg.in", { hasText: "Great" }).waitFor({ timeout: UI_WAIT_MS });
    await expect(replyKeyboard.isHidden()).resolves.toBe(true);
    await apiCall(server.url, "POST", `/api/bots/${created.id}/send-message`, { chat_id: chat, text: "Menu again", reply_markup: { keyboard: [["Again"]] } }, created.token);
    await replyKeyboard.getByRole("button", { name: "Again" }).waitFor({ timeout: UI_WAIT_MS });
    await apiCall(server.url, "POST", `/api/bots/${created.id}/send-message`, { chat_id: chat, text: "Bye", reply_markup: { remove_keyboard: true } }, created.token);
    await replyKeyboard.waitFor({ state: "hidden", timeout: UI_WAIT_MS });

    // Handoff in the inbox: the operator takes the conversation over and gives it back.
    await operator.goto(`${server.url}/#/inbox/${conversation.id}`);
    await operator.getByText("Handled by the bot").waitFor({ timeout: UI_WAIT_MS });
    await operator.getByRole("button", { name: "Take over" }).click();
    await operator.getByText("Taken over by an operator").waitFor({ timeout: UI_WAIT_MS });
    await operator.locator(`.conv-list a[data-id="${conversation.id}"]`).getByText("handled by a human").waitFor({ timeout: UI_WAIT_MS });
    expect((await apiCall(server.url, "GET", `/api/inbox/${conversation.id}`, undefined, user.token)).handled_by).toBe("human");
    await message.getByRole("button", { name: "Basic plan" }).click();
    await page.getByRole("status").filter({ hasText: "an operator is handling this conversation" }).waitFor({ timeout: UI_WAIT_MS });
    await operator.getByRole("button", { name: "Give back to bot" }).click();
    await operator.getByText("Handled by the bot").waitFor({ timeout: UI_WAIT_MS });
    expect((await apiCall(server.url, "GET", `/api/inbox/${conversation.id}`, undefined, user.token)).handled_by).toBe("bot");
    expect(blocked).toEqual([]);
  });
});
