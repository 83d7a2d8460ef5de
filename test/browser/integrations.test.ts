// The cabinet's integrations in a real Chromium: the owner adds an event webhook (its secret
// shown once), watches its delivery log and redelivers; on the Account page a user creates a
// scoped API token (shown once), sees it listed, and revokes it (the token then gets 401).
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import type { RunningServer } from "../../src/server.ts";
import { uniqueEmail } from "../support/harness.ts";
import { startWebhookWorker, type WebhookWorker } from "../../src/workers/webhook.ts";
import { apiCall, launch, localContext, screenshot, skipBrowser, SLOW_MS, startPlatform, UI_WAIT_MS } from "./support.ts";

setDefaultTimeout(SLOW_MS);

describe.skipIf(skipBrowser)("integrations in the cabinet", () => {
  let server: RunningServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const received: string[] = [];
  const receiver = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: async (req) => (received.push(await req.text()), new Response("ok")) });
  const owner = { email: uniqueEmail("integrations"), token: "" };
  const failures: string[] = [];
  let bot: any;
  let worker: WebhookWorker;

  beforeAll(async () => {
    server = await startPlatform();
    browser = await launch();
    owner.token = (await apiCall(server.url, "POST", "/api/auth/register", { email: owner.email, password: "secret123" })).token;
    bot = await apiCall(server.url, "POST", "/api/bots", { name: "Integrated bot" }, owner.token);
    // The delivery worker of this test's bot only (the database is shared with other tests).
    worker = await startWebhookWorker(server.services, { scanIntervalMs: 300, backoff: { baseMs: 50, capMs: 400 }, accept: (id) => id === bot.id });
    context = await localContext(browser, []);
    await context.addInitScript(([token, email]) => {
      localStorage.setItem("botinbox:token", token!);
      localStorage.setItem("botinbox:email", email!);
    }, [owner.token, owner.email]);
    page = await context.newPage();
    page.on("pageerror", (err) => failures.push(`page error: ${err.message}`));
  }, SLOW_MS);

  afterAll(async () => {
    await context?.close().catch(() => {});
    await browser?.close();
    await worker?.stop();
    receiver.stop(true);
    await server?.stop();
  }, SLOW_MS);

  test("add an event webhook, see its secret once, read the delivery log and redeliver", async () => {
    await page.goto(`${server.url}/#/bots/${bot.id}`);
    await page.getByLabel("Endpoint URL").fill(`http://127.0.0.1:${receiver.port}/hook`);
    await page.getByRole("button", { name: "Add event webhook" }).click();
    await page.locator(".hook-secret").waitFor({ timeout: UI_WAIT_MS });
    expect(await page.locator(".hook-secret").textContent()).toMatch(/^whsec_/);
    await apiCall(server.url, "POST", "/api/messages", { bot_id: bot.id, chat_id: `ui-${crypto.randomUUID()}`, text: "hello hook", channel: "web" });
    for (let i = 0; i < 100 && !received.some((r) => r.includes("hello hook")); i++) await Bun.sleep(100);
    expect(received.some((r) => r.includes("hello hook"))).toBe(true);
    const before = received.length;
    await page.getByRole("button", { name: "Deliveries" }).click();
    const row = page.locator(".row-item", { hasText: "message_created" });
    await row.getByText("delivered").waitFor({ timeout: UI_WAIT_MS });
    await screenshot(page, "integrations-deliveries");
    await row.getByRole("button", { name: /^Redeliver/ }).click();
    for (let i = 0; i < 100 && received.length === before; i++) await Bun.sleep(100);
    expect(received.length).toBeGreaterThan(before);
    expect(failures).toEqual([]);
  });

  test("create an API token shown once, see it listed, revoke it", async () => {
    await page.goto(`${server.url}/#/account`);
    await page.getByLabel("Name").fill("Script");
    await page.getByRole("button", { name: "Create token" }).click();
    await page.locator(".api-token").waitFor({ timeout: UI_WAIT_MS });
    const token = (await page.locator(".api-token").textContent())!;
    expect(token).toMatch(/^bi_pat_/);
    const list = page.getByRole("list", { name: "API tokens" });
    await list.getByText("Script").waitFor({ timeout: UI_WAIT_MS });
    expect((await fetch(`${server.url}/api/inbox`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    await screenshot(page, "integrations-tokens");
    page.once("dialog", (d) => void d.accept());
    await list.getByRole("button", { name: "Revoke Script" }).click();
    await list.getByText("No API tokens.").waitFor({ timeout: UI_WAIT_MS });
    expect((await fetch(`${server.url}/api/inbox`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(401);
    expect(failures).toEqual([]);
  });
});
