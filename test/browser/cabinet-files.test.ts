// Files between the widget and the cabinet, in Chromium at a laptop's and a phone's size: a
// visitor attaches a PNG and a PDF; the operator's thread shows the picture (loaded, in the
// box its width and height promised) and the PDF as a card, the side panel lists both; a
// bot's SVG is a card, never drawn; an
// oversize file is refused in plain words; a dropped file can be removed; the operator sends a file back and the visitor
// downloads the same bytes.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import type { Browser, BrowserContext } from "playwright-core";
import type { RunningServer } from "../../src/server.ts";
import { uniqueEmail } from "../support/harness.ts";
import { PDF, pngOf, sha256, SVG } from "../files/support.ts";
import { apiCall, launch, localContext, screenshot, skipBrowser, SLOW_MS, startHostSite, startPlatform, UI_WAIT_MS, type HostSite } from "./support.ts";

setDefaultTimeout(SLOW_MS);

const PNG = pngOf(640, 400);
/** The cabinet fits pictures in a 240 px box: 640×400 is drawn 240×150. */
const BOX = { width: 240, height: 150 };
const VIEWPORTS = [
  { name: "laptop", width: 1366, height: 900 },
  { name: "phone", width: 390, height: 844 },
];

describe.skipIf(skipBrowser)("files in the cabinet", () => {
  let server: RunningServer;
  let site: HostSite;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  const blocked: string[] = [];
  let owner: { token: string; email: string };

  beforeAll(async () => {
    // Signed links name PUBLIC_URL: here, the port the server listens on.
    server = await startPlatform({ ownPublicUrl: true });
    site = startHostSite(server.url);
    browser = await launch();
    const email = uniqueEmail("cabfiles");
    const registered = await apiCall(server.url, "POST", "/api/auth/register", { email, password: "secret123" });
    owner = { token: registered.token, email };
  }, SLOW_MS);

  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => {});
    await browser?.close();
    site?.stop();
    await server?.stop();
  }, SLOW_MS);

  for (const viewport of VIEWPORTS) {
    test(`visitor's picture and PDF in the inbox, operator's file back (${viewport.name} ${viewport.width}×${viewport.height})`, async () => {
      const bot = await apiCall(server.url, "POST", "/api/bots", { name: `Cabinet files ${viewport.name}` }, owner.token);
      await apiCall(server.url, "PATCH", `/api/bots/${bot.id}/channels`, { channel_type: "widget", config: { title: "Acme" } }, owner.token);

      // The visitor attaches a picture and a PDF.
      const visitorContext = await localContext(browser, blocked, { viewport, acceptDownloads: true });
      contexts.push(visitorContext);
      const visitor = await visitorContext.newPage();
      await visitor.goto(site.page("host", bot.widget_key));
      await visitor.getByRole("button", { name: "Open chat" }).click();
      const chooser = visitor.waitForEvent("filechooser");
      await visitor.getByRole("button", { name: "Attach a file" }).click();
      await (await chooser).setFiles([
        { name: "screenshot.png", mimeType: "image/png", buffer: PNG },
        { name: "invoice.pdf", mimeType: "application/pdf", buffer: PDF },
      ]);
      await visitor.locator("botinbox-widget .msg.in:not(.pending) .files").nth(1).waitFor({ timeout: UI_WAIT_MS });

      // The operator opens the conversation.
      const [conversation] = await apiCall(server.url, "GET", `/api/inbox?bot_id=${bot.id}`, undefined, owner.token);
      const operatorContext = await localContext(browser, blocked, { viewport, acceptDownloads: true });
      contexts.push(operatorContext);
      await operatorContext.addInitScript(([token, email]) => {
        localStorage.setItem("botinbox:token", token!);
        localStorage.setItem("botinbox:email", email!);
      }, [owner.token, owner.email]);
      const operator = await operatorContext.newPage();
      await operator.goto(`${server.url}/#/inbox/${conversation.id}`);

      // The picture: lazy, sized before it loads, then loaded in that very box.
      const img = operator.locator(".bubble .thumb img");
      await img.waitFor({ timeout: UI_WAIT_MS });
      await expect(img.getAttribute("loading")).resolves.toBe("lazy");
      await expect(img.getAttribute("width")).resolves.toBe(String(BOX.width));
      await expect(img.getAttribute("height")).resolves.toBe(String(BOX.height));
      await operator.waitForFunction(() => {
        const el = document.querySelector(".bubble .thumb img") as HTMLImageElement | null;
        return el?.complete && el.naturalWidth === 640 && el.naturalHeight === 400;
      }, undefined, { timeout: UI_WAIT_MS });
      const box = (await img.boundingBox())!;
      expect(Math.round(box.width)).toBe(BOX.width);
      expect(Math.round(box.height)).toBe(BOX.height);

      // The PDF is a card with its name, size and a download link, never drawn in place.
      const card = operator.locator(".bubble .file-card");
      await expect(card.locator(".file-name").textContent()).resolves.toBe("invoice.pdf");
      await expect(card.locator(".file-size").textContent()).resolves.toBe(`${PDF.length} B · Download`);
      expect(await operator.locator(".bubble embed, .bubble iframe, .bubble object").count()).toBe(0);

      // The side panel lists the conversation's files.
      await expect(operator.locator("#conv-side .conv-files li a").allTextContents()).resolves.toEqual(expect.arrayContaining(["screenshot.png", "invoice.pdf"]));
      await screenshot(operator, `cabinet-files-${viewport.name}-thread`);

      // A bot's SVG with script (sendDocument) is a card, never drawn: nothing runs in the cabinet.
      const dialogs: string[] = [];
      operator.on("dialog", (d) => {
        dialogs.push(d.message());
        void d.dismiss();
      });
      const svg = new FormData();
      svg.append("chat_id", String(conversation.chat_id));
      svg.append("document", new Blob([SVG as BlobPart]), "logo.svg");
      expect(((await (await fetch(`${server.url}/bot${bot.token}/sendDocument`, { method: "POST", body: svg })).json()) as any).ok).toBe(true);
      await operator.locator(".bubble .file-card .file-name", { hasText: "logo.svg" }).waitFor({ timeout: UI_WAIT_MS });
      expect(await operator.locator(".bubble.out img, .bubble.out svg").count()).toBe(0);
      expect(await operator.title()).not.toBe("pwned");
      expect(dialogs).toEqual([]);

      // The picture opens full size and closes with Escape.
      await operator.locator(".bubble .thumb").click();
      const viewer = operator.locator(".file-viewer");
      await viewer.waitFor({ state: "visible", timeout: UI_WAIT_MS });
      await operator.waitForFunction(() => (document.querySelector(".file-viewer img") as HTMLImageElement | null)?.naturalWidth === 640, undefined, { timeout: UI_WAIT_MS });
      await screenshot(operator, `cabinet-files-${viewport.name}-viewer`);
      await operator.keyboard.press("Escape");
      await viewer.waitFor({ state: "detached", timeout: UI_WAIT_MS });

      // An oversize file is refused in words, and can be removed.
      const pasteTooBig = operator.locator("#reply").evaluate((el) => {
        const data = new DataTransfer();
        data.items.add(new File([new Uint8Array(21 * 1024 * 1024)], "backup.zip", { type: "application/zip" }));
        el.dispatchEvent(new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true }));
      });
      await pasteTooBig;
      const refused = operator.locator(".pending-files li.failed");
      await refused.waitFor({ timeout: UI_WAIT_MS });
      await expect(refused.textContent()).resolves.toContain("“backup.zip” is too large: files can be at most 20 MB.");
      await operator.getByRole("button", { name: "Remove backup.zip" }).click();
      await refused.waitFor({ state: "detached", timeout: UI_WAIT_MS });

      // A file dropped on the reply box is attached; removed, it is not sent.
      await operator.locator("form.reply").evaluate((el) => {
        const data = new DataTransfer();
        data.items.add(new File(["order 1234"], "notes.txt", { type: "text/plain" }));
        el.dispatchEvent(new DragEvent("drop", { dataTransfer: data, bubbles: true, cancelable: true }));
      });
      await operator.locator(".pending-files li.ready", { hasText: "notes.txt" }).waitFor({ timeout: UI_WAIT_MS });
      await operator.getByRole("button", { name: "Remove notes.txt" }).click();
      expect(await operator.locator(".pending-files li").count()).toBe(0);

      // The operator sends a file back through the attach button, with a line of text; on a
      // slow line the upload shows its progress and Send waits for it.
      const cdp = await operatorContext.newCDPSession(operator);
      await cdp.send("Network.enable");
      await cdp.send("Network.emulateNetworkConditions", { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: 100 * 1024 });
      const reply = Buffer.concat([Buffer.from("%PDF-1.4\n%"), randomBytes(300_000)]);
      const opChooser = operator.waitForEvent("filechooser");
      await operator.getByRole("button", { name: "Attach a file" }).click();
      await (await opChooser).setFiles([{ name: "receipt.pdf", mimeType: "application/pdf", buffer: reply }]);
      await operator.waitForFunction(() => ((document.querySelector(".pending-files progress") as HTMLProgressElement | null)?.value ?? 0) > 0.05, undefined, { timeout: UI_WAIT_MS });
      await expect(operator.getByRole("button", { name: "Send", exact: true }).isDisabled()).resolves.toBe(true);
      await screenshot(operator, `cabinet-files-${viewport.name}-progress`);
      await cdp.send("Network.emulateNetworkConditions", { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
      await operator.locator(".pending-files li.ready").waitFor({ timeout: UI_WAIT_MS });
      await screenshot(operator, `cabinet-files-${viewport.name}-pending`);
      await operator.locator("#reply").fill("Your receipt");
      await operator.getByRole("button", { name: "Send", exact: true }).click();
      await operator.locator(".bubble.out .file-card .file-name", { hasText: "receipt.pdf" }).waitFor({ timeout: UI_WAIT_MS });
      expect(await operator.locator(".pending-files li").count()).toBe(0);
      await screenshot(operator, `cabinet-files-${viewport.name}-sent`);

      // The visitor sees it and downloads the same bytes.
      const visitorCard = visitor.locator("botinbox-widget .msg.out .card", { hasText: "receipt.pdf" });
      await visitorCard.waitFor({ timeout: UI_WAIT_MS });
      await expect(visitorCard.locator(".fn").textContent()).resolves.toBe("receipt.pdf");
      const download = visitor.waitForEvent("download");
      await visitorCard.click();
      const got = await download;
      expect(got.suggestedFilename()).toBe("receipt.pdf");
      expect(sha256(readFileSync((await got.path())!))).toBe(sha256(reply));
      await screenshot(visitor, `cabinet-files-${viewport.name}-visitor`);
      expect(blocked).toEqual([]);
    });
  }
});
