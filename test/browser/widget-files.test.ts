// Files in the widget, in Chromium at a laptop's and a phone's size: a visitor attaches a
// PNG and a PDF; the bot's update (Telegram facade) carries photo and document whose
// downloads match; the bot sends a PDF back and the visitor downloads the same bytes from
// its card; a picture opens full size; an HTML file is refused in plain words; a slow
// upload shows its progress and can be cancelled.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import type { Browser, BrowserContext, Page } from "playwright-core";
import type { RunningServer } from "../../src/server.ts";
import { uniqueEmail } from "../support/harness.ts";
import { HTML, PDF, pngOf, sha256 } from "../files/support.ts";
import { apiCall, launch, localContext, screenshot, skipBrowser, SLOW_MS, startHostSite, startPlatform, UI_WAIT_MS, type HostSite } from "./support.ts";

setDefaultTimeout(SLOW_MS);

const PNG = pngOf(640, 400);
const VIEWPORTS = [
  { name: "laptop", width: 1366, height: 900 },
  { name: "phone", width: 390, height: 844 },
];

describe.skipIf(skipBrowser)("files in the widget", () => {
  let server: RunningServer;
  let site: HostSite;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  const blocked: string[] = [];
  let user: { token: string };

  beforeAll(async () => {
    // Signed links name PUBLIC_URL: here, the port the server listens on.
    server = await startPlatform({ ownPublicUrl: true });
    site = startHostSite(server.url);
    browser = await launch();
    user = await apiCall(server.url, "POST", "/api/auth/register", { email: uniqueEmail("files"), password: "secret123" });
  }, SLOW_MS);

  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => {});
    await browser?.close();
    site?.stop();
    await server?.stop();
  }, SLOW_MS);

  const telegram = async (token: string, method: string, body: unknown) => {
    const res = await fetch(`${server.url}/bot${token}/${method}`, {
      method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body),
    });
    return ((await res.json()) as any).result;
  };
  const downloadFile = async (token: string, fileId: string) => {
    const file = await telegram(token, "getFile", { file_id: fileId });
    return new Uint8Array(await (await fetch(`${server.url}/file/bot${token}/${file.file_path}`)).arrayBuffer());
  };
  const bubbles = (page: Page) => page.locator("botinbox-widget .msg");

  for (const viewport of VIEWPORTS) {
    test(`attach, receive, send back, view, refuse, cancel (${viewport.name} ${viewport.width}×${viewport.height})`, async () => {
      const bot = await apiCall(server.url, "POST", "/api/bots", { name: `Files ${viewport.name}` }, user.token);
      await apiCall(server.url, "PATCH", `/api/bots/${bot.id}/channels`, { channel_type: "widget", config: { title: "Acme files", color: "#0f766e" } }, user.token);
      const context = await localContext(browser, blocked, { viewport, acceptDownloads: true });
      contexts.push(context);
      const page = await context.newPage();
      await page.goto(site.page("host", bot.widget_key));
      await page.getByRole("button", { name: "Open chat" }).click();

      // The visitor attaches a picture and a PDF through the attach button.
      const chooser = page.waitForEvent("filechooser");
      await page.getByRole("button", { name: "Attach a file" }).click();
      await (await chooser).setFiles([
        { name: "screenshot.png", mimeType: "image/png", buffer: PNG },
        { name: "invoice.pdf", mimeType: "application/pdf", buffer: PDF },
      ]);
      await page.locator("botinbox-widget .msg.in:not(.pending) .files").nth(1).waitFor({ timeout: UI_WAIT_MS });
      const thumb = page.locator("botinbox-widget .thumb img");
      await expect(thumb.getAttribute("alt")).resolves.toBe("screenshot.png");
      await page.waitForFunction(() => {
        const img = document.querySelector("botinbox-widget")!.shadowRoot!.querySelector(".thumb img") as HTMLImageElement | null;
        return img?.complete && img.naturalWidth === 640;
      }, undefined, { timeout: UI_WAIT_MS });
      await expect(page.locator("botinbox-widget .card .fn").first().textContent()).resolves.toBe("invoice.pdf");
      await screenshot(page, `widget-files-${viewport.name}-attached`);

      // The bot gets them as Telegram shapes them, and downloads the same bytes.
      const updates = await telegram(bot.token, "getUpdates", { timeout: 0 });
      // Each file is its own message, sent as its upload ends: either may come first.
      const photo = updates.map((u: any) => u.message).find((m: any) => m.photo);
      const document = updates.map((u: any) => u.message).find((m: any) => m.document);
      expect(photo.photo.at(-1)).toMatchObject({ width: 640, height: 400, file_size: PNG.length });
      expect(document.document).toMatchObject({ file_name: "invoice.pdf", mime_type: "application/pdf" });
      expect(sha256(await downloadFile(bot.token, photo.photo.at(-1).file_id))).toBe(sha256(PNG));
      expect(sha256(await downloadFile(bot.token, document.document.file_id))).toBe(sha256(PDF));

      // The bot sends a PDF back (multipart, as a Telegram library would); the visitor downloads it.
      const reply = randomBytes(40_000);
      const replyPdf = Buffer.concat([Buffer.from("%PDF-1.4\n%"), reply]);
      const form = new FormData();
      form.append("chat_id", String(photo.chat.id));
      form.append("caption", "Your receipt");
      form.append("document", new Blob([replyPdf as BlobPart]), "receipt.pdf");
      const sent = await (await fetch(`${server.url}/bot${bot.token}/sendDocument`, { method: "POST", body: form })).json() as any;
      expect(sent.ok).toBe(true);
      const card = page.locator("botinbox-widget .msg.out .card");
      await card.waitFor({ timeout: UI_WAIT_MS });
      await expect(card.locator(".fn").textContent()).resolves.toBe("receipt.pdf");
      await screenshot(page, `widget-files-${viewport.name}-reply`);
      const download = page.waitForEvent("download");
      await card.click();
      const got = await download;
      expect(got.suggestedFilename()).toBe("receipt.pdf");
      expect(sha256(readFileSync((await got.path())!))).toBe(sha256(replyPdf));

      // A bot's SVG with script is a card, never drawn: nothing runs in the widget.
      const dialogs: string[] = [];
      page.on("dialog", (d) => {
        dialogs.push(d.message());
        void d.dismiss();
      });
      const svg = new FormData();
      svg.append("chat_id", String(photo.chat.id));
      svg.append("document", new Blob([`<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><script>alert(2)</script></svg>`]), "logo.svg");
      expect(((await (await fetch(`${server.url}/bot${bot.token}/sendDocument`, { method: "POST", body: svg })).json()) as any).ok).toBe(true);
      await page.locator("botinbox-widget .card .fn", { hasText: "logo.svg" }).waitFor({ timeout: UI_WAIT_MS });
      expect(await page.locator("botinbox-widget .msg.out img, botinbox-widget .msg.out svg").count()).toBe(0);
      expect(dialogs).toEqual([]);

      // The picture opens full size and closes again.
      await page.locator("botinbox-widget .thumb").click();
      const viewer = page.locator("botinbox-widget .viewer");
      await viewer.waitFor({ state: "visible", timeout: UI_WAIT_MS });
      await screenshot(page, `widget-files-${viewport.name}-viewer`);
      await viewer.getByRole("button", { name: "Close" }).click();
      await viewer.waitFor({ state: "hidden", timeout: UI_WAIT_MS });

      // A web page is refused, in words the visitor understands; pasting works as attaching.
      await page.locator("botinbox-widget textarea").evaluate((el, html) => {
        const data = new DataTransfer();
        data.items.add(new File([html], "page.html", { type: "text/html" }));
        el.dispatchEvent(new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true }));
      }, HTML.toString());
      const refused = page.locator("botinbox-widget .msg.failed");
      await refused.waitFor({ timeout: UI_WAIT_MS });
      await expect(refused.textContent()).resolves.toContain("“page.html” can't be sent: only pictures, PDF");

      // A slow upload (throttled) shows its progress; Cancel stops it and removes it.
      const cdp = await context.newCDPSession(page);
      await cdp.send("Network.enable");
      await cdp.send("Network.emulateNetworkConditions", { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: 200 * 1024 });
      const before = await bubbles(page).count();
      await page.locator("botinbox-widget input[type=file]").setInputFiles({ name: "video.mp4", mimeType: "video/mp4", buffer: randomBytes(4 * 1024 * 1024) });
      const bar = page.locator("botinbox-widget .up progress");
      await page.waitForFunction(() => {
        const p = document.querySelector("botinbox-widget")!.shadowRoot!.querySelector(".up progress") as HTMLProgressElement | null;
        return p !== null && p.value > 0.05;
      }, undefined, { timeout: UI_WAIT_MS });
      await screenshot(page, `widget-files-${viewport.name}-progress`);
      await page.locator("botinbox-widget .up").getByRole("button", { name: "Cancel" }).click();
      await bar.waitFor({ state: "detached", timeout: UI_WAIT_MS });
      expect(await bubbles(page).count()).toBe(before);
      await cdp.send("Network.emulateNetworkConditions", { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
      const history = await apiCall(server.url, "GET", `/api/messages?widget_key=${bot.widget_key}&chat_id=${photo.chat.id}`).catch(() => []);
      expect(history.filter?.((m: any) => m.attachments?.some((a: any) => a.name === "video.mp4")) ?? []).toEqual([]);
      expect(blocked).toEqual([]);
    });
  }
});
