// The e-mail channel's mailbox form in a real Chromium: the owner fills in IMAP and SMTP,
// saves, and "Test connection" says in plain words whether each side works and what failed.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import type { RunningServer } from "../../src/server.ts";
import { uniqueEmail } from "../support/harness.ts";
import { hasDovecot, startDovecot, startSmtpSink, type Dovecot, type SmtpSink } from "../mail/servers.ts";
import { apiCall, launch, localContext, screenshot, skipBrowser, SLOW_MS, startPlatform, UI_WAIT_MS } from "./support.ts";

setDefaultTimeout(SLOW_MS);

describe.skipIf(skipBrowser || (!hasDovecot && !process.env.CI))("mailbox settings in the cabinet", () => {
  let server: RunningServer;
  let browser: Browser;
  let page: Page;
  let dovecot: Dovecot;
  let smtp: SmtpSink;
  const failures: string[] = [];

  beforeAll(async () => {
    [server, dovecot, smtp] = await Promise.all([startPlatform(), startDovecot(), startSmtpSink()]);
    browser = await launch();
    page = await (await localContext(browser, [], { viewport: { width: 1200, height: 1400 } })).newPage();
    page.on("pageerror", (err) => failures.push(`page error: ${err.message}`));
  }, SLOW_MS);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await dovecot?.stop();
    await smtp?.stop();
  }, SLOW_MS);

  test("fill in the mailbox, save, test: a wrong password is named as the login failing", async () => {
    const email = uniqueEmail("mailbox");
    const { token } = await apiCall(server.url, "POST", "/api/auth/register", { email, password: "secret123" });
    const bot = await apiCall(server.url, "POST", "/api/bots", { name: "Mail bot" }, token);
    await page.goto(`${server.url}/`);
    await page.evaluate(([t, e]) => {
      localStorage.setItem("botinbox:token", t!);
      localStorage.setItem("botinbox:email", e!);
    }, [token, email]);
    await page.goto(`${server.url}/#/bots/${bot.id}`);
    const row = page.locator(".channel", { hasText: "E-mail" });
    await row.getByRole("button", { name: "Configure" }).click();
    const form = page.getByRole("form", { name: "Mailbox settings" });
    const box = dovecot.newMailbox();
    const fill = async (label: string, value: string, nth = 0) => form.getByLabel(label, { exact: true }).nth(nth).fill(value);
    await fill("Server", "127.0.0.1", 0);
    await fill("Port", String(dovecot.port), 0);
    await form.getByLabel("Security").nth(0).selectOption("false");
    await fill("User", box.user);
    await form.getByLabel("Password (an app password)").nth(0).fill("not-the-password");
    await fill("Server", "127.0.0.1", 1);
    await fill("Port", String(smtp.port), 1);
    await form.getByLabel("Security").nth(1).selectOption("none");
    await fill("From address", "support@shop.example");
    await form.getByRole("button", { name: "Save mailbox" }).click();
    await page.getByText("Mailbox saved").waitFor({ timeout: UI_WAIT_MS });
    await form.getByRole("button", { name: "Test connection" }).click();
    await form.getByText("Incoming (IMAP): login: the server refused the user name or password").waitFor({ timeout: UI_WAIT_MS });
    await form.getByText("Outgoing (SMTP): connected and logged in").waitFor({ timeout: UI_WAIT_MS });
    await screenshot(page, "mailbox-test-failed");

    // The stored password field now says so; the right password makes both sides work.
    await form.getByLabel("Password (stored; leave empty to keep it)").nth(0).fill(box.password);
    await form.getByRole("button", { name: "Save mailbox" }).click();
    await page.getByText("Mailbox saved").last().waitFor({ timeout: UI_WAIT_MS });
    await form.getByRole("button", { name: "Test connection" }).click();
    await form.getByText("Incoming (IMAP): connected and logged in").waitFor({ timeout: UI_WAIT_MS });
    await screenshot(page, "mailbox-test-ok");
    const channels = await apiCall(server.url, "GET", `/api/bots/${bot.id}/channels`, undefined, token);
    expect(JSON.stringify(channels)).not.toContain(box.password);
    expect(failures).toEqual([]);
  });
});
