// "Forgot password?" in a real Chromium: the login page offers it, the mailed link sets a new
// password and logs in; a server without SMTP_URL says reset by mail is not configured.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { createLogger } from "../../src/logger.ts";
import { startServer, type RunningServer } from "../../src/server.ts";
import { sharedDb, testConfig, uniqueEmail } from "../support/harness.ts";
import { startSmtpSink, type SmtpSink } from "../mail/servers.ts";
import { apiCall, launch, localContext, screenshot, skipBrowser, SLOW_MS, UI_WAIT_MS } from "./support.ts";

setDefaultTimeout(SLOW_MS);

async function serve(smtpUrl: string | undefined): Promise<RunningServer> {
  const config = testConfig({ port: 0, host: "127.0.0.1", smtpUrl });
  return startServer({ ...config, publicUrl: "http://placeholder" }, createLogger(config), { db: await sharedDb(), migrate: false });
}

describe.skipIf(skipBrowser)("password reset in the cabinet", () => {
  let smtp: SmtpSink;
  let withMail: RunningServer;
  let withoutMail: RunningServer;
  let browser: Browser;
  let page: Page;
  const failures: string[] = [];

  beforeAll(async () => {
    smtp = await startSmtpSink();
    [withMail, withoutMail] = await Promise.all([serve(`smtp://127.0.0.1:${smtp.port}`), serve(undefined)]);
    browser = await launch();
    const context = await localContext(browser, [], { viewport: { width: 1100, height: 800 } });
    page = await context.newPage();
    page.on("pageerror", (err) => failures.push(`page error: ${err.message}`));
  }, SLOW_MS);

  afterAll(async () => {
    await browser?.close();
    await withMail?.stop();
    await withoutMail?.stop();
    await smtp?.stop();
  }, SLOW_MS);

  test("forgot password → mailed link → new password → the inbox", async () => {
    const email = uniqueEmail("forgetful");
    await apiCall(withMail.url, "POST", "/api/auth/register", { email, password: "old-secret" });
    await page.goto(`${withMail.url}/#/login`);
    await page.getByRole("link", { name: "Forgot password?" }).click();
    await page.getByRole("heading", { name: "Reset your password" }).waitFor({ timeout: UI_WAIT_MS });
    await page.getByLabel("E-mail").fill(email);
    await page.getByRole("button", { name: "Send me a link" }).click();
    await page.getByText("a mail with a link is on its way").waitFor({ timeout: UI_WAIT_MS });
    await screenshot(page, "reset-requested");
    const mail = await smtp.waitFor(1);
    // The link names PUBLIC_URL; the test opens the same route on this server.
    const token = mail[0]!.parsed.text!.match(/#\/reset\?token=([\w-]+)/)![1]!;
    await page.goto(`${withMail.url}/#/reset?token=${token}`);
    await page.getByRole("heading", { name: "Choose a new password" }).waitFor({ timeout: UI_WAIT_MS });
    await page.getByLabel("New password").fill("new-secret");
    await screenshot(page, "reset-new-password");
    await page.getByRole("button", { name: "Set the new password" }).click();
    await page.getByRole("link", { name: "Inbox", exact: true }).waitFor({ timeout: UI_WAIT_MS });
    const login = await apiCall(withMail.url, "POST", "/api/auth/login", { email, password: "new-secret" });
    expect(login.user.email).toBe(email);

    // The link worked once.
    await page.evaluate(() => localStorage.clear());
    await page.goto(`${withMail.url}/#/reset?token=${token}`);
    await page.getByLabel("New password").fill("third-secret");
    await page.getByRole("button", { name: "Set the new password" }).click();
    await page.getByText("This link is invalid, used or expired").waitFor({ timeout: UI_WAIT_MS });
    expect(failures).toEqual([]);
  });

  test("without SMTP_URL the page says reset by mail is not configured", async () => {
    await page.goto(`${withoutMail.url}/#/forgot`);
    await page.getByText("Reset by mail is not configured on this server").waitFor({ timeout: UI_WAIT_MS });
    expect(await page.getByRole("button", { name: "Send me a link" }).isVisible()).toBe(false);
    await screenshot(page, "reset-not-configured");
  });
});
