// The team work in a real Chromium: the owner invites an operator, who accepts the
// link after registering; the operator sees no token, channels or team; unread counts are
// per member, live in another member's browser and kept across reloads; assignment and
// the mine / unassigned filters; canned replies with `/`; the operator's typing reaches
// the widget.
import { afterAll, afterEach, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { Browser, BrowserContext, BrowserContextOptions, Page } from "playwright-core";
import type { RunningServer } from "../../src/server.ts";
import { uniqueEmail } from "../support/harness.ts";
import {
  apiCall, launch, localContext, screenshot, skipBrowser, SLOW_MS, startHostSite, startPlatform, UI_WAIT_MS, type HostSite,
} from "./support.ts";

setDefaultTimeout(SLOW_MS);

const DESKTOP: BrowserContextOptions = { viewport: { width: 1366, height: 900 } };

describe.skipIf(skipBrowser)("a team in a real browser", () => {
  let server: RunningServer;
  let site: HostSite;
  let browser: Browser;
  const blocked: string[] = [];
  /** Closed after each test, so a finished test's pages stop talking to the server. */
  const contexts: BrowserContext[] = [];
  const failures: string[] = [];
  const password = "secret123";
  const owner = { email: uniqueEmail("owner"), token: "" };
  const operatorEmail = uniqueEmail("operator");
  let bot: any;

  beforeAll(async () => {
    server = await startPlatform();
    site = startHostSite(server.url);
    browser = await launch();
    owner.token = (await apiCall(server.url, "POST", "/api/auth/register", { email: owner.email, password })).token;
    bot = await apiCall(server.url, "POST", "/api/bots", { name: "Team bot" }, owner.token);
    await apiCall(server.url, "PATCH", `/api/bots/${bot.id}/channels`, { channel_type: "widget", config: { title: "Team chat" } }, owner.token);
  }, SLOW_MS);

  afterEach(async () => {
    for (const context of contexts.splice(0)) await context.close().catch(() => {});
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

  const unreadOf = (page: Page, text: string) => page.locator(".conv", { hasText: text }).locator(".unread-count");

  test("invite → accept; the operator's limited bot page; per-member unread counts, live and after reload", async () => {
    const ownerPage = await newPage(DESKTOP, owner);
    await ownerPage.goto(`${server.url}/#/bots/${bot.id}`);
    await ownerPage.getByLabel("Invite an operator by e-mail").fill(operatorEmail);
    await ownerPage.getByRole("button", { name: "Create invite" }).click();
    const link = (await ownerPage.locator(".invite-link").textContent())!;
    expect(link).toContain("#invite=");
    await ownerPage.getByRole("list", { name: "Pending invites" }).getByText(operatorEmail).waitFor({ timeout: UI_WAIT_MS });
    await ownerPage.locator(".invite-created").scrollIntoViewIfNeeded();
    await screenshot(ownerPage, "team-invite-created");
    // The same page on a phone: nothing sticks out sideways.
    await ownerPage.setViewportSize({ width: 390, height: 844 });
    await ownerPage.locator(".invite-created").scrollIntoViewIfNeeded();
    await expect(ownerPage.evaluate(() => document.documentElement.scrollWidth)).resolves.toBeLessThanOrEqual(390);
    await screenshot(ownerPage, "team-invite-created-390");
    await ownerPage.setViewportSize({ width: 1366, height: 900 });

    // The operator opens the link without an account: register, then accept.
    const operatorPage = await newPage(DESKTOP);
    await operatorPage.goto(link.replace(/^https?:\/\/[^/]+/, server.url));
    await operatorPage.getByText("Log in, or create an account").waitFor({ timeout: UI_WAIT_MS });
    await operatorPage.getByRole("link", { name: "Create an account" }).click();
    await operatorPage.getByLabel("E-mail").fill(operatorEmail);
    await operatorPage.getByLabel("Password").fill(password);
    await operatorPage.getByRole("button", { name: "Create account" }).click();
    await operatorPage.getByRole("button", { name: "Accept the invitation" }).click();
    await operatorPage.getByText("You joined Team bot as operator").waitFor({ timeout: UI_WAIT_MS });
    await operatorPage.getByRole("heading", { name: "Inbox" }).waitFor({ timeout: UI_WAIT_MS });
    const operatorToken = (await operatorPage.evaluate(() => localStorage.getItem("botinbox:token")))!;

    // The operator's bot page: canned replies, but no token, keys, channels or team.
    await operatorPage.goto(`${server.url}/#/bots/${bot.id}`);
    await operatorPage.getByRole("heading", { name: "Team bot" }).waitFor({ timeout: UI_WAIT_MS });
    await operatorPage.getByRole("heading", { name: "Canned replies" }).waitFor({ timeout: UI_WAIT_MS });
    for (const hidden of ["API token", "Keys", "Channels", "Team", "Website widget", "Delete this bot"]) {
      await expect(operatorPage.getByRole("heading", { name: hidden, exact: true }).count()).resolves.toBe(0);
    }
    await expect(operatorPage.getByRole("button", { name: "Rename" }).count()).resolves.toBe(0);
    await expect(operatorPage.content()).resolves.not.toContain(bot.token);
    await screenshot(operatorPage, "team-operator-bot-page");

    // The owner's team now lists the operator.
    await ownerPage.reload();
    await ownerPage.getByRole("list", { name: "Members" }).getByText(operatorEmail).waitFor({ timeout: UI_WAIT_MS });

    // Two visitor messages: both members' lists count them live, each for themselves.
    await ownerPage.goto(`${server.url}/#/inbox`);
    await operatorPage.goto(`${server.url}/#/inbox`);
    for (const page of [ownerPage, operatorPage]) await page.locator(".live-state.live").waitFor({ timeout: UI_WAIT_MS });
    const visitor = { bot_id: bot.id, chat_id: "unread-chat", channel: "web", user: { first_name: "Una" } };
    await apiCall(server.url, "POST", "/api/messages", { ...visitor, text: "First question" });
    await apiCall(server.url, "POST", "/api/messages", { ...visitor, text: "Second question" });
    for (const page of [ownerPage, operatorPage]) {
      await unreadOf(page, "Una").filter({ hasText: "2" }).waitFor({ timeout: UI_WAIT_MS });
      await page.locator('.tab[data-tab="all"] .tab-unread', { hasText: "1" }).waitFor({ timeout: UI_WAIT_MS });
      await page.waitForFunction(() => document.title.startsWith("(1) "), undefined, { timeout: UI_WAIT_MS });
    }

    // The owner reads it; the operator's count stays, across a reload too.
    await ownerPage.locator(".conv", { hasText: "Una" }).click();
    await ownerPage.locator(".bubble", { hasText: "Second question" }).waitFor({ timeout: UI_WAIT_MS });
    await unreadOf(ownerPage, "Una").waitFor({ state: "detached", timeout: UI_WAIT_MS });
    await ownerPage.waitForFunction(() => !document.title.startsWith("("), undefined, { timeout: UI_WAIT_MS });
    await operatorPage.reload();
    await unreadOf(operatorPage, "Una").filter({ hasText: "2" }).waitFor({ timeout: UI_WAIT_MS });
    await screenshot(operatorPage, "team-operator-unread");
    // And the owner's read state survives the owner's reload.
    await ownerPage.goto(`${server.url}/#/inbox`);
    await ownerPage.reload();
    await ownerPage.locator(".conv", { hasText: "Una" }).waitFor({ timeout: UI_WAIT_MS });
    await expect(unreadOf(ownerPage, "Una").count()).resolves.toBe(0);

    // The operator reads it in a second tab of their own: the first tab's count clears live.
    const operatorTab = await operatorPage.context().newPage();
    await operatorTab.goto(`${server.url}/#/inbox`);
    await operatorTab.locator(".conv", { hasText: "Una" }).click();
    await operatorTab.locator(".bubble", { hasText: "Second question" }).waitFor({ timeout: UI_WAIT_MS });
    await unreadOf(operatorPage, "Una").waitFor({ state: "detached", timeout: UI_WAIT_MS });
    await operatorTab.close();

    const [asOperator] = await apiCall(server.url, "GET", "/api/bots", undefined, operatorToken);
    expect(asOperator.role).toBe("operator");
    expect(asOperator.token ?? null).toBeNull();
    expect(failures).toEqual([]);
    expect(blocked).toEqual([]);
  });

  test("assignment with the mine / unassigned filters; canned replies with /; the operator's typing shows in the widget", async () => {
    // A second operator joins through the API (the invite flow itself is tested above).
    const email = uniqueEmail("assignee");
    const invite = await apiCall(server.url, "POST", `/api/bots/${bot.id}/invites`, { email }, owner.token);
    const operator = { email, token: (await apiCall(server.url, "POST", "/api/auth/register", { email, password })).token };
    await apiCall(server.url, "POST", "/api/invites/accept", { code: invite.code }, operator.token);

    // The owner saves a canned reply on the bot's page.
    const ownerPage = await newPage(DESKTOP, owner);
    await ownerPage.goto(`${server.url}/#/bots/${bot.id}`);
    await ownerPage.getByLabel("Shortcut").fill("hours");
    await ownerPage.getByLabel("Reply text").fill("We answer from 9:00 to 18:00.");
    await ownerPage.getByRole("button", { name: "Add reply" }).click();
    await ownerPage.getByRole("list", { name: "Canned replies" }).getByText("/hours").waitFor({ timeout: UI_WAIT_MS });

    // A visitor writes through the widget.
    const visitor = await newPage(DESKTOP);
    await visitor.goto(site.page("host", bot.widget_key));
    await visitor.getByRole("button", { name: "Open chat" }).click();
    await visitor.getByRole("textbox", { name: "Message" }).fill("When are you open?");
    await visitor.getByRole("textbox", { name: "Message" }).press("Enter");
    await visitor.locator(".msg.in[data-id]", { hasText: "When are you open?" }).waitFor({ timeout: UI_WAIT_MS });

    // The owner assigns it to the operator.
    const operatorPage = await newPage(DESKTOP, operator);
    await operatorPage.goto(`${server.url}/#/inbox`);
    await operatorPage.locator(".live-state.live").waitFor({ timeout: UI_WAIT_MS });
    await ownerPage.goto(`${server.url}/#/inbox`);
    await ownerPage.locator(".conv", { hasText: "When are you open?" }).click();
    await ownerPage.getByLabel("Assignee").selectOption({ label: email });
    await ownerPage.getByText(`Assigned to ${email}`).waitFor({ timeout: UI_WAIT_MS });
    await ownerPage.locator(".conv .assignee", { hasText: email }).waitFor({ timeout: UI_WAIT_MS });

    // The operator sees the assignee live; "Mine" keeps it, "Unassigned" does not.
    const row = operatorPage.locator(".conv", { hasText: "When are you open?" });
    await row.locator(".assignee", { hasText: email }).waitFor({ timeout: UI_WAIT_MS });
    await operatorPage.getByLabel("Assigned to").selectOption("me");
    await row.waitFor({ timeout: UI_WAIT_MS });
    await operatorPage.getByLabel("Assigned to").selectOption("unassigned");
    await row.waitFor({ state: "detached", timeout: UI_WAIT_MS });
    await expect(operatorPage.locator(".conv .assignee").count()).resolves.toBe(0);
    await ownerPage.getByLabel("Assigned to").selectOption("me");
    await ownerPage.getByText("No conversations match.").waitFor({ timeout: UI_WAIT_MS });
    await operatorPage.getByLabel("Assigned to").selectOption("me");
    await row.click();
    // The contact panel names the page the visitor wrote from.
    await operatorPage.getByRole("complementary", { name: "Details" }).getByRole("link", { name: "Acme Shop" }).waitFor({ timeout: UI_WAIT_MS });
    // The detail shows the assignee too.
    await operatorPage.locator("#conv-assignee option:checked", { hasText: email }).waitFor({ state: "attached", timeout: UI_WAIT_MS });
    // An operator may hand it to any member, the owner included.
    await operatorPage.locator("#conv-assignee option", { hasText: owner.email }).waitFor({ state: "attached", timeout: UI_WAIT_MS });

    // `/` offers the canned reply; Enter inserts it (without sending); typing reaches the widget.
    const reply = operatorPage.getByRole("textbox", { name: "Reply" });
    await reply.pressSequentially("/ho");
    await operatorPage.getByRole("option", { name: /hours/ }).waitFor({ timeout: UI_WAIT_MS });
    await screenshot(operatorPage, "team-canned-reply");
    await reply.press("Enter");
    await expect(reply.inputValue()).resolves.toBe("We answer from 9:00 to 18:00.");
    await reply.pressSequentially(" See you!");
    await visitor.locator(".msg.typing").waitFor({ timeout: UI_WAIT_MS });
    // The owner, who has the same conversation open, learns that someone is answering.
    await ownerPage.getByText("Another operator is typing a reply…").waitFor({ timeout: UI_WAIT_MS });
    await reply.press("Enter");
    await visitor.locator(".msg.out", { hasText: "We answer from 9:00 to 18:00. See you!" }).waitFor({ timeout: UI_WAIT_MS });
    await screenshot(operatorPage, "team-assigned-conversation");
    expect(failures).toEqual([]);
    expect(blocked).toEqual([]);
  });
});
