// A support team's tools in a real Chromium: the label filter and a bulk action in the inbox,
// a private note's mention reaching the mentioned colleague's open cabinet, and a contact merge.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import type { RunningServer } from "../../src/server.ts";
import { uniqueEmail } from "../support/harness.ts";
import { apiCall, launch, localContext, screenshot, skipBrowser, SLOW_MS, startPlatform, UI_WAIT_MS } from "./support.ts";

setDefaultTimeout(SLOW_MS);

describe.skipIf(skipBrowser)("team workflow in the cabinet", () => {
  let server: RunningServer;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  const blocked: string[] = [];
  const errors: string[] = [];
  const owner = { email: uniqueEmail("owner"), token: "", id: "" };
  const operator = { email: uniqueEmail("operator"), token: "", id: "" };
  let bot: any;
  const conversations: Record<string, string> = {};

  async function pageAs(user: { email: string; token: string }, hash: string): Promise<Page> {
    const context = await localContext(browser, blocked, { viewport: { width: 1280, height: 860 } });
    contexts.push(context);
    await context.addInitScript(([t, e]) => {
      localStorage.setItem("botinbox:token", t!);
      localStorage.setItem("botinbox:email", e!);
    }, [user.token, user.email]);
    const page = await context.newPage();
    page.on("pageerror", (err) => errors.push(err.message));
    await page.goto(`${server.url}/${hash}`);
    return page;
  }

  beforeAll(async () => {
    server = await startPlatform();
    browser = await launch();
    for (const user of [owner, operator]) {
      const r = await apiCall(server.url, "POST", "/api/auth/register", { email: user.email, password: "secret123" });
      user.token = r.token;
      user.id = r.user.id;
    }
    bot = await apiCall(server.url, "POST", "/api/bots", { name: "Helpdesk" }, owner.token);
    const invite = await apiCall(server.url, "POST", `/api/bots/${bot.id}/invites`, { email: operator.email }, owner.token);
    await apiCall(server.url, "POST", "/api/invites/accept", { code: invite.code }, operator.token);
    await apiCall(server.url, "POST", `/api/bots/${bot.id}/labels`, { name: "billing", color: "#e5484d" }, owner.token);
    for (const [chat, name, email] of [["c-ann", "Ann", "ann@example.com"], ["c-bob", "Bob", "bob@example.com"], ["c-cy", "Cy", "cy@example.com"]] as const) {
      const sent = await apiCall(server.url, "POST", "/api/messages", {
        widget_key: bot.widget_key, chat_id: chat, text: `Hello from ${name}`, user: { id: `u-${chat}`, first_name: name, email },
      });
      conversations[name] = sent.conversation_id;
    }
    await apiCall(server.url, "PATCH", `/api/inbox/${conversations.Bob}`, { labels: ["billing"] }, owner.token);
  }, SLOW_MS);

  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => {});
    await browser?.close();
    await server?.stop();
  }, SLOW_MS);

  test("the label filter shows the labelled conversation only; a bulk action closes the ticked ones", async () => {
    const page = await pageAs(owner, "#/inbox");
    const list = page.getByRole("list", { name: "Conversations" });
    await list.getByText("Hello from Cy").waitFor({ timeout: UI_WAIT_MS });
    await expect(list.locator(".label-chip", { hasText: "billing" }).count()).resolves.toBe(1);
    await page.getByRole("combobox", { name: "Bot" }).selectOption(bot.id);
    await page.getByRole("combobox", { name: "Label" }).selectOption("billing");
    await page.waitForFunction(() => document.querySelectorAll(".conv-list .conv").length === 1, undefined, { timeout: UI_WAIT_MS });
    expect(await list.locator(".conv").innerText()).toContain("Hello from Bob");
    await screenshot(page, "workflow-label-filter");

    await page.getByRole("combobox", { name: "Label" }).selectOption("");
    await page.waitForFunction(() => document.querySelectorAll(".conv-list .conv").length === 3, undefined, { timeout: UI_WAIT_MS });
    for (const name of ["Ann", "Cy"]) await page.locator(`li.conv-row:has(a[data-id="${conversations[name]}"]) .conv-select`).check();
    const bar = page.getByRole("toolbar", { name: "Bulk actions" });
    await bar.getByText("2 selected").waitFor({ timeout: UI_WAIT_MS });
    await screenshot(page, "workflow-bulk-bar");
    await bar.getByRole("combobox", { name: "Set status" }).selectOption("closed");
    await page.getByRole("status").getByText("2 changed").waitFor({ timeout: UI_WAIT_MS });
    for (const name of ["Ann", "Cy"]) {
      expect((await apiCall(server.url, "GET", `/api/inbox/${conversations[name]}`, undefined, owner.token)).status).toBe("closed");
    }
    expect((await apiCall(server.url, "GET", `/api/inbox/${conversations.Bob}`, undefined, owner.token)).status).not.toBe("closed");
  });

  test("a private note mentioning a colleague notifies them in their open cabinet", async () => {
    const colleague = await pageAs(operator, "#/mentions");
    await colleague.getByRole("heading", { name: "Mentions" }).waitFor({ timeout: UI_WAIT_MS });
    await colleague.locator(".live-state.live").waitFor({ timeout: UI_WAIT_MS });
    const page = await pageAs(owner, `#/inbox/${conversations.Bob}`);
    await page.getByRole("button", { name: "Private note" }).click();
    await page.getByRole("group", { name: "Mention" }).getByText(`@${operator.email}`).click();
    await page.getByRole("textbox", { name: "Reply" }).fill("Can you check Bob's refund?");
    await page.getByRole("button", { name: "Add note" }).click();
    await page.locator(".bubble.private", { hasText: "Can you check Bob's refund?" }).waitFor({ timeout: UI_WAIT_MS });
    await screenshot(page, "workflow-private-note");
    await colleague.getByRole("status").getByText(/mentioned you: Can you check Bob's refund\?/).waitFor({ timeout: UI_WAIT_MS });
    await colleague.reload();
    await colleague.getByRole("list", { name: "Mentions" }).getByText(/Can you check Bob's refund\?/).waitFor({ timeout: UI_WAIT_MS });
    await screenshot(colleague, "workflow-mentions");
    // The visitor never sees it.
    const history = await apiCall(server.url, "GET", `/api/messages?widget_key=${bot.widget_key}&chat_id=c-bob`);
    expect(history.map((m: any) => m.text)).not.toContain("Can you check Bob's refund?");
  });

  test("a contact merge moves the conversations to the contact kept", async () => {
    const page = await pageAs(owner, "#/contacts");
    const table = page.getByRole("table", { name: "Contacts" });
    await table.getByText("ann@example.com").waitFor({ timeout: UI_WAIT_MS });
    await table.getByRole("button", { name: "Ann" }).click();
    const editor = page.getByRole("region", { name: "Contact Ann" });
    await editor.getByRole("combobox", { name: "Merge into" }).selectOption({ label: "Cy" });
    await editor.getByRole("button", { name: "Merge" }).click();
    await page.getByRole("region", { name: "Contact Cy" }).waitFor({ timeout: UI_WAIT_MS });
    await page.waitForFunction(() => !document.querySelector('.contacts-table')?.textContent?.includes("ann@example.com"), undefined, { timeout: UI_WAIT_MS });
    await screenshot(page, "workflow-contact-merge");
    const ann = await apiCall(server.url, "GET", `/api/inbox/${conversations.Ann}`, undefined, owner.token);
    expect(ann.contact.first_name).toBe("Cy");
    expect(errors).toEqual([]);
    expect(blocked).toEqual([]);
  });
});
