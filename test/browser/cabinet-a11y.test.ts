// The cabinet for people who do not use a mouse or do not see the screen: axe-core finds no
// serious or critical violation on any page (login, register, bots, a bot with its team,
// the inbox with a conversation open, account), and an operator logs in, moves through the
// conversation list, opens one and replies with the keyboard alone.
import { createHmac } from "node:crypto";
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import type { RunningServer } from "../../src/server.ts";
import { uniqueEmail } from "../support/harness.ts";
import { seriousViolations } from "./axe.ts";
import { apiCall, launch, localContext, screenshot, skipBrowser, SLOW_MS, startPlatform, UI_WAIT_MS } from "./support.ts";

setDefaultTimeout(SLOW_MS);

describe.skipIf(skipBrowser)("cabinet accessibility", () => {
  let server: RunningServer;
  let browser: Browser;
  const blocked: string[] = [];
  const contexts: BrowserContext[] = [];
  const password = "secret123";
  let owner: { token: string; email: string };
  let bot: { id: string; widget_key: string };
  let conversationId: string;
  let verifiedConversationId: string;
  let identitySecret: string;

  const newPage = async () => {
    const c = await localContext(browser, blocked, { viewport: { width: 1280, height: 800 } });
    contexts.push(c);
    return c.newPage();
  };
  /** What has focus, as a person hears it: its label, or its text. */
  const focused = (page: Page) =>
    page.evaluate(() => {
      const el = document.activeElement as HTMLElement | null;
      if (!el || el === document.body) return "";
      const id = el.id && document.querySelector(`label[for="${el.id}"]`)?.textContent;
      return (el.getAttribute("aria-label") || id || el.closest("label")?.textContent || el.textContent || "").trim();
    });
  /** Tab (or Shift+Tab) until focus is on what `matches`; fails the test if it never gets there. */
  const tabTo = async (page: Page, matches: (name: string) => boolean, key = "Tab", max = 40) => {
    for (let i = 0; i < max; i++) {
      if (matches(await focused(page))) return;
      await page.keyboard.press(key);
    }
    throw new Error(`focus never reached the element; it is on "${await focused(page)}"`);
  };
  const noSeriousViolations = async (page: Page, name: string) => {
    await screenshot(page, `a11y-${name}`);
    expect({ page: name, violations: await seriousViolations(page) }).toEqual({ page: name, violations: [] });
  };
  const logIn = async (page: Page) => {
    await page.goto(`${server.url}/#/login`);
    await page.getByLabel("E-mail").fill(owner.email);
    await page.getByLabel("Password").fill(password);
    await page.getByRole("button", { name: "Log in" }).click();
    await page.getByRole("heading", { name: "Inbox" }).waitFor({ timeout: UI_WAIT_MS });
  };

  beforeAll(async () => {
    server = await startPlatform();
    browser = await launch();
    const email = uniqueEmail("a11y-owner");
    owner = { token: (await apiCall(server.url, "POST", "/api/auth/register", { email, password })).token, email };
    bot = await apiCall(server.url, "POST", "/api/bots", { name: "Help desk" }, owner.token);
    const operator = uniqueEmail("a11y-operator");
    const operatorToken = (await apiCall(server.url, "POST", "/api/auth/register", { email: operator, password })).token;
    const invite = await apiCall(server.url, "POST", `/api/bots/${bot.id}/invites`, { email: operator }, owner.token);
    await apiCall(server.url, "POST", "/api/invites/accept", { code: invite.code }, operatorToken);
    await apiCall(server.url, "POST", `/api/bots/${bot.id}/invites`, { email: uniqueEmail("a11y-pending") }, owner.token);
    const accepted = await apiCall(server.url, "POST", "/api/messages", {
      widget_key: bot.widget_key, chat_id: `a11y-${crypto.randomUUID()}`, text: "My parcel never arrived", user: { first_name: "Petra" },
    });
    conversationId = accepted.conversation_id;
    await apiCall(server.url, "POST", "/api/messages", { widget_key: bot.widget_key, chat_id: `a11y-${crypto.randomUUID()}`, text: "Do you sell gift cards?" });
    identitySecret = (await apiCall(server.url, "GET", `/api/bots/${bot.id}/identity-secret`, undefined, owner.token)).identity_secret;
    const verified = await apiCall(server.url, "POST", "/api/messages", {
      widget_key: bot.widget_key, user_id: "customer-77", user_hash: createHmac("sha256", identitySecret).update("customer-77").digest("hex"),
      user: { name: "Vera Stone" }, text: "Signed in and asking",
    });
    verifiedConversationId = verified.conversation_id;
  }, SLOW_MS);

  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => {});
    await browser?.close();
    await server?.stop();
  }, SLOW_MS);

  test("axe-core: no serious or critical violation on any cabinet page", async () => {
    const page = await newPage();
    await page.goto(`${server.url}/#/login`);
    await page.getByRole("heading", { name: "Log in to your inbox" }).waitFor({ timeout: UI_WAIT_MS });
    await noSeriousViolations(page, "login");
    await page.goto(`${server.url}/#/register`);
    await page.getByRole("button", { name: "Create account" }).waitFor({ timeout: UI_WAIT_MS });
    await noSeriousViolations(page, "register");

    await logIn(page);
    await page.goto(`${server.url}/#/inbox/${conversationId}`);
    await page.locator(".messages .bubble.in", { hasText: "My parcel never arrived" }).waitFor({ timeout: UI_WAIT_MS });
    await noSeriousViolations(page, "inbox-conversation");
    // A verified visitor's contact says so.
    await page.goto(`${server.url}/#/inbox/${verifiedConversationId}`);
    await page.locator(".contact .pill.verified", { hasText: "Verified" }).waitFor({ timeout: UI_WAIT_MS });
    await noSeriousViolations(page, "inbox-verified-contact");

    await page.goto(`${server.url}/#/bots`);
    await page.getByRole("heading", { name: "Bots", exact: true }).waitFor({ timeout: UI_WAIT_MS });
    await page.getByText("Help desk").first().waitFor({ timeout: UI_WAIT_MS });
    await noSeriousViolations(page, "bots");

    await page.goto(`${server.url}/#/bots/${bot.id}`);
    await page.getByRole("heading", { name: "Team" }).waitFor({ timeout: UI_WAIT_MS });
    await page.locator("#team-title").scrollIntoViewIfNeeded();
    await noSeriousViolations(page, "bot-and-team");
    // The owner reads the identity secret there, masked until shown.
    const identity = page.locator(".kv", { has: page.locator(".identity-secret") });
    await expect(identity.locator("code").textContent()).resolves.not.toContain(identitySecret);
    await identity.getByRole("button", { name: "Reveal" }).click();
    await expect(identity.locator("code").textContent()).resolves.toBe(identitySecret);

    await page.goto(`${server.url}/#/account`);
    await page.getByRole("heading", { name: "Account" }).first().waitFor({ timeout: UI_WAIT_MS });
    await noSeriousViolations(page, "account");
  });

  test("keyboard only: log in, move through the inbox, open a conversation and reply", async () => {
    const page = await newPage();
    await page.goto(`${server.url}/#/login`);
    await page.getByRole("heading", { name: "Log in to your inbox" }).waitFor({ timeout: UI_WAIT_MS });
    await tabTo(page, (name) => name.startsWith("E-mail"));
    await page.keyboard.type(owner.email);
    await tabTo(page, (name) => name.startsWith("Password"));
    await page.keyboard.type(password);
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: "Inbox" }).waitFor({ timeout: UI_WAIT_MS });
    await page.locator(".conv", { hasText: "My parcel never arrived" }).waitFor({ timeout: UI_WAIT_MS });

    // Through the list: the newer conversation first, then the one to answer.
    await tabTo(page, (name) => name.includes("Do you sell gift cards?"));
    await tabTo(page, (name) => name.includes("My parcel never arrived"));
    await page.keyboard.press("Enter");
    await page.locator(".messages .bubble.in", { hasText: "My parcel never arrived" }).waitFor({ timeout: UI_WAIT_MS });
    await tabTo(page, (name) => name === "Reply");
    await page.keyboard.type("Sorry to hear that, Petra: a new parcel leaves today.");
    await page.keyboard.press("Enter");
    await page.locator(".messages .bubble.out", { hasText: "a new parcel leaves today" }).waitFor({ timeout: UI_WAIT_MS });
    await screenshot(page, "a11y-keyboard-reply");
    const history = await apiCall(server.url, "GET", `/api/inbox/${conversationId}`, undefined, owner.token);
    expect(history.messages.map((m: { text: string }) => m.text)).toContain("Sorry to hear that, Petra: a new parcel leaves today.");
  });
});
