// A file with script in it (HTML, SVG, HTML named .png), uploaded by a bot or an operator,
// never runs when its signed link is opened directly in Chromium: it arrives as a download
// of the same bytes, and no dialog, console message or title change happens.
// Visitors cannot upload such files at all (415).
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync } from "node:fs";
import type { Browser, BrowserContext } from "playwright-core";
import type { RunningServer } from "../../src/server.ts";
import { uniqueEmail } from "../support/harness.ts";
import { sha256 } from "../files/support.ts";
import { apiCall, launch, localContext, screenshot, skipBrowser, SLOW_MS, startPlatform } from "./support.ts";

setDefaultTimeout(SLOW_MS);

/** Every way the page could show it ran: a dialog, a console line, the title. */
const SCRIPT = "alert('pwned'); console.log('pwned'); document.title = 'pwned'; fetch('/pwned')";
const HOSTILE = {
  html: Buffer.from(`<!doctype html><html><head><title>file</title></head><body><script>${SCRIPT}</script><img src=x onerror="${SCRIPT}"></body></html>`),
  svg: Buffer.from(`<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" onload="${SCRIPT}"><script>${SCRIPT}</script><rect width="10" height="10"/></svg>`),
};

describe.skipIf(skipBrowser)("files with script, opened directly by their link", () => {
  let server: RunningServer;
  let browser: Browser;
  let context: BrowserContext;
  const blocked: string[] = [];

  beforeAll(async () => {
    server = await startPlatform();
    browser = await launch();
    context = await localContext(browser, blocked, { acceptDownloads: true, viewport: { width: 1280, height: 800 } });
  }, SLOW_MS);

  afterAll(async () => {
    await context?.close().catch(() => {});
    await browser?.close();
    await server?.stop();
  }, SLOW_MS);

  async function uploadAs(path: string, token: string | undefined, bytes: Buffer, name: string, fields: Record<string, string> = {}) {
    const data = new FormData();
    for (const [k, v] of Object.entries(fields)) data.append(k, v);
    data.append("file", new Blob([bytes as BlobPart]), name);
    const res = await fetch(`${server.url}${path}`, { method: "POST", body: data, headers: token ? { authorization: `Bearer ${token}` } : {} });
    return { status: res.status, body: (await res.json()) as any };
  }

  test("HTML, SVG and HTML named .png from a bot or an operator download as inert bytes; a visitor cannot send them", async () => {
    const user = await apiCall(server.url, "POST", "/api/auth/register", { email: uniqueEmail("files"), password: "secret123" });
    const bot = await apiCall(server.url, "POST", "/api/bots", { name: "Files bot" }, user.token);
    const chatId = `chat-${crypto.randomUUID()}`;
    const first = await apiCall(server.url, "POST", "/api/messages", { bot_id: bot.id, chat_id: chatId, text: "hi", channel: "web" });

    const files = [
      { who: "bot", ...(await uploadAs(`/api/bots/${bot.id}/upload-file`, bot.token, HOSTILE.html, "page.html")), bytes: HOSTILE.html },
      { who: "bot", ...(await uploadAs(`/api/bots/${bot.id}/upload-file`, bot.token, HOSTILE.svg, "logo.svg")), bytes: HOSTILE.svg },
      { who: "bot", ...(await uploadAs(`/api/bots/${bot.id}/upload-file`, bot.token, HOSTILE.html, "cat.png")), bytes: HOSTILE.html },
      { who: "operator", ...(await uploadAs(`/api/inbox/${first.conversation_id}/files`, user.token, HOSTILE.svg, "chart.svg")), bytes: HOSTILE.svg },
    ];
    for (const f of files) expect(f.status).toBe(200);
    expect(files.map((f) => f.body.result.mime_type)).toEqual(["text/html", "image/svg+xml", "text/html", "image/svg+xml"]);
    for (const [bytes, name] of [[HOSTILE.html, "page.html"], [HOSTILE.svg, "logo.svg"]] as const) {
      const visitor = await uploadAs("/api/files", undefined, bytes, name, { bot_id: bot.id, chat_id: chatId });
      expect(visitor.status).toBe(415);
    }

    for (const [i, f] of files.entries()) {
      const page = await context.newPage();
      const seen: string[] = [];
      page.on("dialog", (d) => {
        seen.push(`dialog: ${d.message()}`);
        void d.dismiss();
      });
      page.on("console", (m) => seen.push(`console: ${m.text()}`));
      const download = page.waitForEvent("download", { timeout: 15_000 });
      // A download aborts the navigation; what matters is what the browser did with the bytes.
      // The link as handed out, on this server (tests do not set PUBLIC_URL to its port).
      const link = new URL(f.body.result.url);
      await page.goto(`${server.url}${link.pathname}${link.search}`).catch(() => undefined);
      const got = await download;
      expect(sha256(readFileSync((await got.path())!))).toBe(sha256(f.bytes));
      await Bun.sleep(500);
      expect(seen).toEqual([]);
      expect(await page.title()).not.toBe("pwned");
      expect(page.url()).not.toContain("/api/files/");
      await screenshot(page, `file-link-${i}-${f.who}`);
      await page.close();
    }
    expect(blocked).toEqual([]);
  });
});
